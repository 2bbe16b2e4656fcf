/**
 * zod schemas of what OpenAI-compatible providers (Moonshot/Kimi, DeepSeek, …) accept and send.
 *
 * Lenient where providers differ (PROVIDERS.md): objects keep unknown fields (`z.looseObject`), and `null` and an
 * omitted field are both accepted (`.nullish()`). Types are inferred from the schemas.
 */
import { z } from 'zod';

/** Token usage; DeepSeek, Moonshot and OpenAI field variants all fit. */
export const Usage = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
  prompt_cache_hit_tokens: z.number().nullish(),
  prompt_cache_miss_tokens: z.number().nullish(),
  cached_tokens: z.number().nullish(),
});
export type Usage = z.infer<typeof Usage>;

/** One fragment of a tool call inside a streamed delta. Moonshot may omit `index`. */
export const ToolCallDelta = z.looseObject({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});
export type ToolCallDelta = z.infer<typeof ToolCallDelta>;

/** What a streamed choice adds to the message. */
export const ChunkDelta = z.looseObject({
  role: z.string().nullish(),
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(ToolCallDelta).nullish(),
});
export type ChunkDelta = z.infer<typeof ChunkDelta>;

/** One choice of a streamed chunk. Moonshot puts `usage` here on the finishing chunk. */
export const ChunkChoice = z.looseObject({
  index: z.number().int().nonnegative().nullish(),
  delta: ChunkDelta.nullish(),
  finish_reason: z.string().nullish(),
  logprobs: z.unknown().optional(),
  usage: Usage.nullish(),
});
export type ChunkChoice = z.infer<typeof ChunkChoice>;

/** One `chat.completion.chunk` of a stream. `choices` may be empty (the final usage chunk) or absent. */
export const ChatCompletionChunk = z.looseObject({
  id: z.string().nullish(),
  object: z.string().nullish(),
  created: z.number().nullish(),
  model: z.string().nullish(),
  system_fingerprint: z.string().nullish(),
  choices: z.array(ChunkChoice).default([]),
  usage: Usage.nullish(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;

/** A complete tool call, as a non-streaming response (and the next request's assistant message) carries it. */
export const ToolCall = z.looseObject({
  id: z.string(),
  type: z.string(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** The assistant message of a complete answer. `content` is `null` when the model only called tools. */
export const CompletionMessage = z.looseObject({
  role: z.string(),
  content: z.string().nullable(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(ToolCall).nullish(),
});
export type CompletionMessage = z.infer<typeof CompletionMessage>;

/** One choice of a complete answer. */
export const CompletionChoice = z.looseObject({
  index: z.number().int().nonnegative(),
  message: CompletionMessage,
  finish_reason: z.string().nullable(),
  logprobs: z.unknown().optional(),
});
export type CompletionChoice = z.infer<typeof CompletionChoice>;

/** A non-streaming `chat.completion` response, and the snapshot `accumulateDeltas` emits. */
export const ChatCompletion = z.looseObject({
  id: z.string(),
  object: z.string(),
  created: z.number(),
  model: z.string(),
  system_fingerprint: z.string().nullish(),
  choices: z.array(CompletionChoice),
  usage: Usage.nullish(),
});
export type ChatCompletion = z.infer<typeof ChatCompletion>;

/** A function the model may call. */
export const ToolDefinition = z.looseObject({
  type: z.string(),
  function: z
    .looseObject({ name: z.string().min(1), description: z.string().optional(), parameters: z.unknown().optional() })
    .optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/** A message of the conversation sent upstream. */
export const UpstreamMessage = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).nullish(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
  reasoning_content: z.string().nullish(),
});
export type UpstreamMessage = z.infer<typeof UpstreamMessage>;

/** The body of `POST {baseUrl}/chat/completions`. Unknown provider options are kept and forwarded. */
export const ChatCompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(UpstreamMessage).min(1),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  n: z.number().int().positive().optional(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  tools: z.array(ToolDefinition).optional(),
  tool_choice: z.unknown().optional(),
  response_format: z.looseObject({ type: z.string() }).optional(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;
