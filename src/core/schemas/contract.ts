/**
 * zod schemas of the downstream contract (`spec/downstream-chat-endpoints.txt`): the request body of the three
 * endpoints, `LlmClientOutput` (`/chat/json`), `LlmClientOutputChunk` (`/chat/stream` lines, `/chat/sse` data),
 * and the error body. Optional extensions beyond the spec are marked as such; clients that know only the spec's
 * fields keep working.
 */
import { z } from 'zod';
import { MessageContent, ToolCall, ToolDefinition, Usage } from './upstream.js';

/** A message of the conversation, as the spec's clients send it (`tool` for tool results). */
export const ChatMessage = z.object({
  /** Who speaks: `system`, `user`, `assistant`, or `tool` (a tool result). */
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  /** The text (or OpenAI-style content parts); `null` for an assistant message with only tool calls. */
  content: MessageContent.nullable(),
  /** An optional participant name. */
  name: z.string().optional(),
  /** An assistant message's tool calls (sent back with their results). */
  tool_calls: z.array(ToolCall).optional(),
  /** A `tool` message: the id of the call it answers. */
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * The request body of `/chat/json`, `/chat/stream` and `/chat/sse`: the spec's `model?`, `messages`, `temperature?`,
 * and the OpenAI-compatible options the gateway forwards. Unknown fields are dropped.
 */
export const ChatRequest = z.object({
  /** The model; the server's default when absent. */
  model: z.string().min(1).optional(),
  /** The conversation so far (at least one message). */
  messages: z.array(ChatMessage).min(1),
  /** Sampling temperature, 0–2. */
  temperature: z.number().min(0).max(2).optional(),
  /** Nucleus sampling, 0–1. */
  top_p: z.number().min(0).max(1).optional(),
  /** The most tokens of the answer. */
  max_tokens: z.number().int().positive().optional(),
  /** Up to 16 sequences that end the answer. */
  stop: z.union([z.string(), z.array(z.string()).max(16)]).optional(),
  /** Functions the model may call (forwarded). */
  tools: z.array(ToolDefinition).optional(),
  /** `none`, `auto`, `required`, or a function to force (forwarded). */
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.looseObject({
        /** `function`. */
        type: z.string(),
      }),
    ])
    .optional(),
  /** E.g. `{ type: "json_object" }` (forwarded). */
  response_format: z
    .looseObject({
      /** `text` or `json_object`. */
      type: z.string(),
    })
    .optional(),
  /** -2–2 (forwarded). */
  presence_penalty: z.number().min(-2).max(2).optional(),
  /** -2–2 (forwarded). */
  frequency_penalty: z.number().min(-2).max(2).optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

/** The assistant message of the contract. `reasoning_content`, `refusal` and `tool_calls` are optional extensions. */
export const OutputMessage = z.object({
  /** Always `assistant`. */
  role: z.literal('assistant'),
  /** The text: all of it in `/chat/json`, this chunk's piece in a stream (`''` when there is none). */
  content: z.string(),
  /**
   * Extension: the reasoning (reasoning models), whatever field the provider used (`reasoning_content`,
   * `reasoning`, Mistral's `thinking` parts).
   */
  reasoning_content: z.string().optional(),
  /**
   * Extension: the model's refusal (OpenAI `refusal`), sent instead of content — so a refused request never looks
   * like an empty answer.
   */
  refusal: z.string().optional(),
  /** Extension: complete tool calls, ids verbatim (never fragments). */
  tool_calls: z.array(ToolCall).optional(),
});
export type OutputMessage = z.infer<typeof OutputMessage>;

/** `/chat/json`'s body. `finish_reason` and `usage` are optional extensions. */
export const LlmClientOutput = z.object({
  /** The upstream completion's id (`''` when it sent none). */
  id: z.string(),
  /** The model that answered. */
  model: z.string(),
  /** Unix time in seconds. */
  created: z.number(),
  /** The whole answer. */
  message: OutputMessage,
  /** Always `true`. */
  done: z.literal(true),
  /** Extension: why the answer ended (`stop`, `length`, `tool_calls`, …). */
  finish_reason: z.string().optional(),
  /** Extension: token usage, counted once. */
  usage: Usage.optional(),
  /**
   * Extension: `true` when the request asked for usage (`stream_options.include_usage`) and the stream ended without
   * `[DONE]`, after every `finish_reason` but before any usage came: the answer is complete, its usage unknown.
   */
  usage_missing: z.boolean().optional(),
});
export type LlmClientOutput = z.infer<typeof LlmClientOutput>;

/** One `/chat/stream` line and one `/chat/sse` data payload. Only the last chunk has `done: true`. */
export const LlmClientOutputChunk = z.object({
  /** This chunk's piece of the answer. */
  message: OutputMessage,
  /** `true` only on the last chunk. */
  done: z.boolean(),
  /** 0, 1, 2, … without gaps. */
  index: z.number().int().nonnegative(),
  /** Extension, on the last chunk: why the answer ended. */
  finish_reason: z.string().optional(),
  /** Extension, on the last chunk: token usage. */
  usage: Usage.optional(),
  /** Extension, on the last chunk: `true` when usage was asked for and never came (see `LlmClientOutput`). */
  usage_missing: z.boolean().optional(),
});
export type LlmClientOutputChunk = z.infer<typeof LlmClientOutputChunk>;

/** The spec's error object: `/chat/json` wraps it as `{"error": …}`, NDJSON as `{"error": …, "done": true}`, SSE sends it as the data of `event: error`. */
export const ErrorBody = z.object({
  /** What went wrong, for people (secrets redacted, no stack). */
  message: z.string(),
  /** The class of error: `invalid_request_error`, `authentication_error`, `rate_limit_error`, `upstream_error`, `timeout_error`, `aborted_error`, `server_error`. */
  type: z.string(),
  /** A stable machine-readable code (`invalid_request`, `stream_incomplete`, the provider's own code, …). */
  code: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
