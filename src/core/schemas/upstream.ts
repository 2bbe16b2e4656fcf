/**
 * zod schemas of what OpenAI-compatible providers (Moonshot/Kimi, DeepSeek, …) accept and send.
 *
 * Lenient where providers differ (docs/PROVIDERS.md): objects keep unknown fields (`z.looseObject`), and `null` and an
 * omitted field are both accepted (`.nullish()`). Types are inferred from the schemas.
 */
import { z } from 'zod';

/** Token usage; DeepSeek, Moonshot and OpenAI field variants all fit. */
export const Usage = z.looseObject({
  /** Tokens of the prompt (the request's messages). */
  prompt_tokens: z.number().nullish(),
  /** Tokens of the answer (reasoning included). */
  completion_tokens: z.number().nullish(),
  /** `prompt_tokens + completion_tokens`. */
  total_tokens: z.number().nullish(),
  /** OpenAI-style breakdown of the prompt tokens. */
  prompt_tokens_details: z
    .looseObject({
      /** Prompt tokens served from the provider's cache. */
      cached_tokens: z.number().nullish(),
    })
    .nullish(),
  /** OpenAI-style breakdown of the answer tokens (`reasoning_tokens`). */
  completion_tokens_details: z
    .looseObject({
      /** Tokens spent on reasoning. */
      reasoning_tokens: z.number().nullish(),
    })
    .nullish(),
  /** DeepSeek: prompt tokens served from its context cache. */
  prompt_cache_hit_tokens: z.number().nullish(),
  /** DeepSeek: prompt tokens not in its context cache. */
  prompt_cache_miss_tokens: z.number().nullish(),
  /** Moonshot: prompt tokens served from its context cache. */
  cached_tokens: z.number().nullish(),
});
export type Usage = z.infer<typeof Usage>;

/** One fragment of a tool call inside a streamed delta. Moonshot may omit `index`. */
export const ToolCallDelta = z.looseObject({
  /** Which call of the delta's message this fragment extends (Moonshot may omit it). */
  index: z.number().int().nonnegative().nullish(),
  /** The call's id, on its first fragment (verbatim: `call_…`, Kimi's `name:N`). */
  id: z.string().nullish(),
  /** `function` (Kimi also sends `builtin_function`), on the first fragment. */
  type: z.string().nullish(),
  /** The function name (first fragment) and a piece of the arguments' JSON text. */
  function: z
    .looseObject({
      /** The function's name (first fragment). */
      name: z.string().nullish(),
      /** A piece of the arguments' JSON text. */
      arguments: z.string().nullish(),
    })
    .nullish(),
});
export type ToolCallDelta = z.infer<typeof ToolCallDelta>;

/**
 * One part of a content array (`{type: 'text', text}`, `{type: 'image_url', image_url}`, Mistral's
 * `{type: 'thinking', thinking: [{type: 'text', text}]}`, …). Only `type` is checked; the rest is kept as sent.
 */
export const ContentPart = z.looseObject({
  /** The part's type (`text`, `image_url`, `thinking`, …). */
  type: z.string(),
});
export type ContentPart = z.infer<typeof ContentPart>;

/** What a streamed choice adds to the message. */
export const ChunkDelta = z.looseObject({
  /** `assistant`, usually only on the first chunk. */
  role: z.string().nullish(),
  /**
   * The next piece of the answer's text — or, from Mistral's thinking models, an array of parts: `text` parts are
   * text, `thinking` parts reasoning (the operators read both; see `deltaContent` / `deltaReasoning`).
   */
  content: z.union([z.string(), z.array(ContentPart)]).nullish(),
  /** The next piece of the reasoning (DeepSeek reasoner, Kimi thinking models, Qwen, xAI). */
  reasoning_content: z.string().nullish(),
  /** The next piece of the reasoning, as OpenRouter, Groq, vLLM and the Vercel AI gateway name it. */
  reasoning: z.string().nullish(),
  /** The next piece of a refusal (OpenAI), sent instead of content. */
  refusal: z.string().nullish(),
  /** Fragments of tool calls. */
  tool_calls: z.array(ToolCallDelta).nullish(),
});
export type ChunkDelta = z.infer<typeof ChunkDelta>;

/** One choice of a streamed chunk. Moonshot puts `usage` here on the finishing chunk. */
export const ChunkChoice = z.looseObject({
  /** The choice's index (0 unless `n > 1`). */
  index: z.number().int().nonnegative().nullish(),
  /** What this chunk adds to the choice's message. */
  delta: ChunkDelta.nullish(),
  /** Why the choice ended (`stop`, `length`, `tool_calls`, …), on its last chunk. */
  finish_reason: z.string().nullish(),
  /** Log probabilities, when requested; passed through. */
  logprobs: z.unknown().optional(),
  /** Moonshot: the usage, inside the finishing choice. */
  usage: Usage.nullish(),
});
export type ChunkChoice = z.infer<typeof ChunkChoice>;

/** One `chat.completion.chunk` of a stream. `choices` may be empty (the final usage chunk) or absent. */
export const ChatCompletionChunk = z.looseObject({
  /** The completion's id (the same on every chunk). */
  id: z.string().nullish(),
  /** `chat.completion.chunk`. */
  object: z.string().nullish(),
  /** Unix time (seconds) the completion was created. */
  created: z.number().nullish(),
  /** The model that answers. */
  model: z.string().nullish(),
  /** The backend configuration, when the provider reports it. */
  system_fingerprint: z.string().nullish(),
  /** The choices this chunk extends; empty on a usage-only chunk. */
  choices: z.array(ChunkChoice).default([]),
  /** Token usage, on the last chunk (with `stream_options.include_usage`). */
  usage: Usage.nullish(),
  /** Groq's extension: its request id and, on the last chunk, the usage (`x_groq.usage`), sometimes only there. */
  x_groq: z
    .looseObject({
      /** The usage, when Groq reports it here. */
      usage: Usage.nullish(),
    })
    .nullish(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;

/** A complete tool call, as a non-streaming response (and the next request's assistant message) carries it. */
export const ToolCall = z.looseObject({
  /** The call's id, verbatim; a tool result answers it with `tool_call_id`. */
  id: z.string(),
  /** `function` (Kimi also has `builtin_function`). */
  type: z.string(),
  /** The function's name and its complete arguments as JSON text. */
  function: z.looseObject({
    /** The function's name. */
    name: z.string(),
    /** Its complete arguments, as JSON text (not validated: see `assembleToolCalls({ schemas })`). */
    arguments: z.string(),
  }),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** The assistant message of a complete answer. `content` is `null` when the model only called tools. */
export const CompletionMessage = z.looseObject({
  /** `assistant`. */
  role: z.string(),
  /** The answer's text; `null` when the model only called tools. */
  content: z.string().nullable(),
  /** The reasoning, for reasoning models. */
  reasoning_content: z.string().nullish(),
  /** The tool calls, complete. */
  tool_calls: z.array(ToolCall).nullish(),
});
export type CompletionMessage = z.infer<typeof CompletionMessage>;

/** One choice of a complete answer. */
export const CompletionChoice = z.looseObject({
  /** The choice's index (0 unless `n > 1`). */
  index: z.number().int().nonnegative(),
  /** The assistant message. */
  message: CompletionMessage,
  /** Why the choice ended; `null` while a snapshot is still growing. */
  finish_reason: z.string().nullable(),
  /** Log probabilities, when requested; passed through. */
  logprobs: z.unknown().optional(),
});
export type CompletionChoice = z.infer<typeof CompletionChoice>;

/** A non-streaming `chat.completion` response, and the snapshot `accumulateDeltas` emits. */
export const ChatCompletion = z.looseObject({
  /** The completion's id. */
  id: z.string(),
  /** `chat.completion`. */
  object: z.string(),
  /** Unix time (seconds) the completion was created. */
  created: z.number(),
  /** The model that answered. */
  model: z.string(),
  /** The backend configuration, when the provider reports it. */
  system_fingerprint: z.string().nullish(),
  /** The choices, sorted by index. */
  choices: z.array(CompletionChoice),
  /** Token usage, when the provider sent it. */
  usage: Usage.nullish(),
});
export type ChatCompletion = z.infer<typeof ChatCompletion>;

/** A function the model may call. */
export const ToolDefinition = z.looseObject({
  /** `function`. */
  type: z.string(),
  /** The function: its `name`, a `description` for the model, and `parameters` as a JSON schema. */
  function: z
    .looseObject({
      /** The function's name. */
      name: z.string().min(1),
      /** What it does, for the model. */
      description: z.string().optional(),
      /** Its arguments, as a JSON schema (`z.toJSONSchema(schema)`). */
      parameters: z.unknown().optional(),
    })
    .optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/** A message's content: its text, or OpenAI-style content parts (`{type: 'text' | 'image_url', …}`). */
export const MessageContent = z.union([z.string(), z.array(ContentPart)]);
export type MessageContent = z.infer<typeof MessageContent>;

/**
 * A message of the conversation, as sent upstream and as the contract's clients send it. Every field is kept as sent,
 * known ones type-checked, unknown ones (a provider's own: Moonshot's `partial`, …) passed through.
 */
export const UpstreamMessage = z.looseObject({
  /** Who speaks: `system`, `developer`, `user`, `assistant` or `tool` (a tool result). */
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  /** The text, or content parts (`text`, `image_url`, …); `null` or absent for an assistant message with only tool calls. */
  content: MessageContent.nullish(),
  /** An optional participant name. */
  name: z.string().nullish(),
  /** An assistant message's tool calls, sent back with the tool results (ids verbatim). */
  tool_calls: z.array(ToolCall).nullish(),
  /** A `tool` message: the id of the call it answers. */
  tool_call_id: z.string().nullish(),
  /**
   * An assistant message's reasoning. DeepSeek's thinking mode wants it back with the tool calls it led to (else
   * HTTP 400); `accumulateDeltas` gives a message ready to send back as it is.
   */
  reasoning_content: z.string().nullish(),
  /** DeepSeek / Moonshot: the last assistant message is a prefix the answer continues (chat prefix completion). */
  prefix: z.boolean().nullish(),
});
export type UpstreamMessage = z.infer<typeof UpstreamMessage>;

/**
 * The OpenAI-compatible options of a chat request, type-checked where they are known (a wrong type is a 400 naming
 * the field); `null` is accepted as "not set" and passed on as sent. Shared by {@link ChatCompletionRequest} and the
 * contract's `ChatRequest`: every option a client sends reaches the provider intact, and so do unknown ones.
 */
export const ChatRequestOptions = z.looseObject({
  /**
   * Stream the answer (OpenAI's `/v1/chat/completions` chooses its wire by it; the upstream request always has
   * `true`: `requestCompletion` sets it).
   */
  stream: z.boolean().nullish(),
  /** `include_usage`: ask for a final usage chunk (always `true` upstream: `requestCompletion` sets it). */
  stream_options: z
    .looseObject({
      /** Ask for a final usage chunk. */
      include_usage: z.boolean().nullish(),
    })
    .nullish(),
  /** Sampling temperature, 0–2. */
  temperature: z.number().min(0).max(2).nullish(),
  /** Nucleus sampling, 0–1. */
  top_p: z.number().min(0).max(1).nullish(),
  /** The most tokens of the answer. */
  max_tokens: z.number().int().positive().nullish(),
  /** The most tokens of the answer, reasoning included (OpenAI's newer name). */
  max_completion_tokens: z.number().int().positive().nullish(),
  /** How many choices to generate (the contract follows one: `toOutputChunks({ choice })`). */
  n: z.number().int().positive().nullish(),
  /** A seed for (best-effort) deterministic sampling. */
  seed: z.number().int().nullish(),
  /** Sequences that end the answer. */
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  /** -2–2. */
  presence_penalty: z.number().min(-2).max(2).nullish(),
  /** -2–2. */
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  /** Return log probabilities of the output tokens. */
  logprobs: z.boolean().nullish(),
  /** How many most likely tokens to return per position, 0–20 (with `logprobs`). */
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  /** An id of the end user, for the provider's abuse monitoring. */
  user: z.string().nullish(),
  /** Functions the model may call. */
  tools: z.array(ToolDefinition).nullish(),
  /** `none`, `auto`, `required`, or a function to force (`{type: 'function', function: {name}}`). */
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.looseObject({
        /** `function`. */
        type: z.string(),
      }),
    ])
    .nullish(),
  /** Whether the model may call several tools at once. */
  parallel_tool_calls: z.boolean().nullish(),
  /** E.g. `{ type: "json_object" }` or `{ type: "json_schema", json_schema }`. */
  response_format: z
    .looseObject({
      /** `text`, `json_object` or `json_schema`. */
      type: z.string(),
    })
    .nullish(),
  /** DeepSeek's and Kimi's thinking switch: `{ type: "enabled" }` or `{ type: "disabled" }`. */
  thinking: z
    .looseObject({
      /** `enabled` or `disabled`. */
      type: z.string(),
    })
    .nullish(),
});
export type ChatRequestOptions = z.infer<typeof ChatRequestOptions>;

/** The body of `POST {baseUrl}/chat/completions`. Unknown provider options are kept and forwarded. */
export const ChatCompletionRequest = z.looseObject({
  /** The model to use. */
  model: z.string().min(1),
  /** The conversation so far. */
  messages: z.array(UpstreamMessage).min(1),
  ...ChatRequestOptions.shape,
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;
