import type { ErrorBody } from '../core/schemas/index.js';

/** OpenAI's error object: what `{"error": …}` holds in its answers and in its streams. */
export interface OpenAiError {
  /** What went wrong, for people (secrets redacted, no stack). */
  message: string;
  /** The class of error (`invalid_request_error`, `authentication_error`, `rate_limit_error`, …). */
  type: string;
  /** The request parameter at fault, when one is; else `null`. */
  param: string | null;
  /** A stable machine-readable code (`invalid_request`, `stream_incomplete`, the provider's own code, …). */
  code: string;
}

/**
 * The contract's error body in OpenAI's shape, `{message, type, param, code}`: the object the `openai` SDKs,
 * LangChain and the AI SDK read from `{"error": …}` (they make their `APIError`s of it).
 *
 * @param body - The error body (`toErrorResponse(error).body`: secrets redacted, no stack).
 * @param param - The request parameter at fault (default `null`).
 * @returns `{ message, type, param, code }`.
 */
export function toOpenAiError(body: ErrorBody, param: string | null = null): OpenAiError {
  return { message: body.message, type: body.type, param, code: body.code };
}
