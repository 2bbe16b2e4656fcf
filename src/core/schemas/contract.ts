/**
 * zod schemas of the downstream contract (`spec/downstream-chat-endpoints.txt`): the request body of the three
 * endpoints, `LlmClientOutput` (`/chat/json`), `LlmClientOutputChunk` (`/chat/stream` lines, `/chat/sse` data),
 * and the error body. Optional extensions beyond the spec are marked as such; clients that know only the spec's
 * fields keep working.
 */
import { z } from 'zod';
import { ChatRequestOptions, ToolCall, UpstreamMessage, Usage } from './upstream.js';

/**
 * A message of the conversation, as the spec's clients send it (`tool` for tool results): the upstream message, so
 * that every field — `tool_calls`, `tool_call_id`, `reasoning_content`, `name`, `prefix`, content parts (images),
 * and fields chatflux does not know — reaches the provider as sent.
 */
export const ChatMessage = UpstreamMessage;
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * The request body of `/chat/json`, `/chat/stream` and `/chat/sse`: the spec's `model?`, `messages`, `temperature?`,
 * and every OpenAI-compatible option ({@link ChatRequestOptions}: `n`, `seed`, `stop`, `max_tokens`,
 * `max_completion_tokens`, `response_format`, `tools`, `tool_choice`, `parallel_tool_calls`, `top_p`, the penalties,
 * `logprobs`, `top_logprobs`, `user`, `thinking`, …). Known fields are type-checked; unknown ones are kept and
 * forwarded (a gateway's operator may strip some: `RequestPolicyConfig`).
 */
export const ChatRequest = z.looseObject({
  /** The model; the server's default when absent. */
  model: z.string().min(1).optional(),
  /** The conversation so far (at least one message). */
  messages: z.array(ChatMessage).min(1),
  ...ChatRequestOptions.shape,
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

/**
 * Extension: one attempt of a route (`createChatRoute`) — a target tried, retried, skipped, cut or that finished the
 * answer — in the `attempts` field of the last chunk and of the `/chat/json` answer.
 */
export const RouteAttempt = z.object({
  /** The target's name (`provider:model` unless configured). */
  target: z.string(),
  /** Its provider preset (`deepseek`, `moonshot`, `openai-compatible`, …). */
  provider: z.string(),
  /** Its model, when known. */
  model: z.string().optional(),
  /**
   * `completed`: it finished the answer; `cut`: it delivered text, then broke (the answer was continued, or failed);
   * `failed`: it failed before delivering (the request moved on); `retried`: a failure retried on the same target;
   * `skipped`: its circuit breaker was open.
   */
  outcome: z.union([z.literal('completed'), z.literal('cut'), z.literal('failed'), z.literal('retried'), z.literal('skipped')]),
  /** What went wrong: the provider's code or type, else chatflux's code (`timeout:first_chunk`, `network`, …). */
  error: z.string().optional(),
  /** The upstream HTTP status, for an HTTP failure. */
  status: z.number().optional(),
});
export type RouteAttempt = z.infer<typeof RouteAttempt>;

/**
 * Extension, from a tool loop (`runTools` → `toToolLoopChunks`): one tool's result as the model was told it — the
 * `tool` message's content — on a chunk of its own (its message empty).
 */
export const ToolResultFrame = z.object({
  /** The id of the call it answers, verbatim. */
  tool_call_id: z.string(),
  /** The tool (the function the model called). */
  name: z.string(),
  /**
   * `ok`: the tool ran; `invalid_arguments`: its arguments failed the tool's schema (or were not JSON); `unknown_tool`:
   * the model called a tool the loop does not have; `refused`: the approval hook said no; `failed`: the tool threw and
   * the loop reports failures to the model (`toolErrors: 'report'`).
   */
  outcome: z.union([
    z.literal('ok'),
    z.literal('invalid_arguments'),
    z.literal('unknown_tool'),
    z.literal('refused'),
    z.literal('failed'),
  ]),
  /** The `tool` message's content: the result as text, or what the model is told went wrong. */
  content: z.string(),
});
export type ToolResultFrame = z.infer<typeof ToolResultFrame>;

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
  /** Extension, through a route: the provider preset of the target that finished the answer. */
  provider: z.string().optional(),
  /** Extension, through a route: the name of the target that finished the answer (as in `attempts`). */
  target: z.string().optional(),
  /** Extension, through a route: every attempt, in order (usage is summed over those whose text was delivered). */
  attempts: z.array(RouteAttempt).optional(),
  /**
   * Extension, through a route: `true` when part of `usage` is an estimate — a segment cut before its provider reported
   * its usage counts one completion token per text piece it streamed, and its prompt by its characters.
   */
  usage_estimated: z.boolean().optional(),
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
  /** Extension, on the last chunk through a route: the model that finished the answer. */
  model: z.string().optional(),
  /** Extension, on the last chunk through a route: the provider preset of the target that finished it. */
  provider: z.string().optional(),
  /** Extension, on the last chunk through a route: the name of the target that finished it. */
  target: z.string().optional(),
  /** Extension, on the last chunk through a route: every attempt, in order (see `LlmClientOutput.attempts`). */
  attempts: z.array(RouteAttempt).optional(),
  /** Extension, on the last chunk through a route: `true` when part of `usage` is an estimate (see `LlmClientOutput`). */
  usage_estimated: z.boolean().optional(),
  /**
   * Extension, through a route, only for a caller that accepts a restart (`Chatflux-Accept-Restart: true`): the answer
   * starts again — discard the text received so far; the whole answer follows. `code` is the public code of the cut
   * that could not be continued. The chunk's message is empty and it is never the last.
   */
  restart: z
    .object({
      /** The public code of the cut that could not be continued (`network`, `timeout`, `stream_incomplete`, …). */
      code: z.string(),
    })
    .optional(),
  /**
   * Extension, from a tool loop (`toToolLoopChunks`): the step (request to the model, from 0) the chunk belongs to — on
   * every chunk of the loop, so a client can tell the answers of the steps apart.
   */
  step: z.number().int().nonnegative().optional(),
  /** Extension, from a tool loop (`toToolLoopChunks`): a tool's result, on a chunk of its own (see {@link ToolResultFrame}). */
  tool_result: ToolResultFrame.optional(),
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
