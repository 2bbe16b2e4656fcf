/**
 * zod schemas of the downstream contract (`spec/downstream-chat-endpoints.txt`): the request body of the three
 * endpoints, `LlmClientOutput` (`/chat/json`), `LlmClientOutputChunk` (`/chat/stream` lines, `/chat/sse` data),
 * and the error body. Optional extensions beyond the spec are marked as such; clients that know only the spec's
 * fields keep working.
 */
import { z } from 'zod';
import { ToolCall, ToolDefinition, Usage } from './upstream.js';

/** A message of the conversation, as the spec's clients send it (`tool` for tool results). */
export const ChatMessage = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).nullable(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * The request body of `/chat/json`, `/chat/stream` and `/chat/sse`: the spec's `model?`, `messages`, `temperature?`,
 * and the OpenAI-compatible options the gateway forwards. Unknown fields are dropped.
 */
export const ChatRequest = z.object({
  model: z.string().min(1).optional(),
  messages: z.array(ChatMessage).min(1),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(16)]).optional(),
  tools: z.array(ToolDefinition).optional(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })]).optional(),
  response_format: z.looseObject({ type: z.string() }).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

/** The assistant message of the contract. `reasoning_content` and `tool_calls` are optional extensions. */
export const OutputMessage = z.object({
  role: z.literal('assistant'),
  content: z.string(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
});
export type OutputMessage = z.infer<typeof OutputMessage>;

/** `/chat/json`'s body. `finish_reason` and `usage` are optional extensions. */
export const LlmClientOutput = z.object({
  id: z.string(),
  model: z.string(),
  created: z.number(),
  message: OutputMessage,
  done: z.literal(true),
  finish_reason: z.string().optional(),
  usage: Usage.optional(),
});
export type LlmClientOutput = z.infer<typeof LlmClientOutput>;

/** One `/chat/stream` line and one `/chat/sse` data payload. Only the last chunk has `done: true`. */
export const LlmClientOutputChunk = z.object({
  message: OutputMessage,
  done: z.boolean(),
  index: z.number().int().nonnegative(),
  finish_reason: z.string().optional(),
  usage: Usage.optional(),
});
export type LlmClientOutputChunk = z.infer<typeof LlmClientOutputChunk>;

/** The spec's error object: `/chat/json` wraps it as `{"error": …}`, NDJSON as `{"error": …, "done": true}`, SSE sends it as the data of `event: error`. */
export const ErrorBody = z.object({ message: z.string(), type: z.string(), code: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;
