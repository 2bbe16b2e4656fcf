import type { ErrorBody } from '../core/schemas/index.js';

/** Anthropic's error body: `{"type":"error","error":{"type","message"}}`, the answer's body and the stream's `error` event. */
export interface AnthropicErrorBody {
  /** Always `error`. */
  type: 'error';
  /** What went wrong. */
  error: {
    /** Anthropic's error type (`invalid_request_error`, `authentication_error`, `rate_limit_error`, `api_error`, …). */
    type: string;
    /** What went wrong, for people (secrets redacted, no stack). */
    message: string;
  };
}

/** The contract's error types that are Anthropic's too. */
const SAME: ReadonlySet<string> = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'rate_limit_error', 'timeout_error']);

/**
 * The contract's error body in Anthropic's shape, as the `@anthropic-ai/sdk` reads it (its `APIError`s by status, the
 * `error.type` in the body):
 *
 * | contract `type` (`code`)                        | Anthropic `error.type`                               |
 * | ----------------------------------------------- | ---------------------------------------------------- |
 * | `invalid_request_error` (`payload_too_large`)   | `request_too_large`                                  |
 * | `invalid_request_error`, `authentication_error`, `permission_error`, `rate_limit_error`, `timeout_error` | the same |
 * | `upstream_error` whose code says overloaded     | `overloaded_error`                                   |
 * | `insufficient_quota` (a spent token budget, 429) | `rate_limit_error`                                  |
 * | anything else (`upstream_error`, `server_error`, `aborted_error`) | `api_error`                        |
 *
 * @param body - The error body (`toErrorResponse(error).body`: secrets redacted, no stack).
 * @returns `{ type: 'error', error: { type, message } }`.
 */
export function toAnthropicError(body: ErrorBody): AnthropicErrorBody {
  let type = 'api_error';
  if (body.type === 'invalid_request_error' && body.code === 'payload_too_large') type = 'request_too_large';
  else if (SAME.has(body.type)) type = body.type;
  else if (body.type === 'upstream_error' && /overload/i.test(body.code)) type = 'overloaded_error';
  else if (body.type === 'insufficient_quota') type = 'rate_limit_error';
  return { type: 'error', error: { type, message: body.message } };
}
