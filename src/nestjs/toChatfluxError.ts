import { HttpException } from '@nestjs/common';
import { isChatfluxError, RequestError } from '../errors.js';
import { toRequestError } from '../internal/toRequestError.js';

const BY_STATUS = new Map<number, 'invalid_request' | 'unauthorized' | 'payload_too_large' | 'unsupported_media_type'>([
  [400, 'invalid_request'],
  [401, 'unauthorized'],
  [413, 'payload_too_large'],
  [415, 'unsupported_media_type'],
]);

/**
 * What Nest or a body parser threw, as a chatflux error, so that `toErrorResponse` gives it the contract's status
 * and body: body-parser failures as the Express router words them, and Nest's `HttpException`s with 400, 401, 413
 * or 415 as {@link RequestError}s with their message. Chatflux errors, and anything else, pass unchanged
 * (anything else becomes a 500 that discloses nothing).
 */
export function toChatfluxError(error: unknown): unknown {
  if (isChatfluxError(error)) return error;
  const limit = (error as { limit?: unknown } | null)?.limit;
  const parsed = toRequestError(error, typeof limit === 'number' ? limit : '1mb');
  if (parsed !== undefined) return parsed;
  if (!(error instanceof HttpException)) return error;
  const code = BY_STATUS.get(error.getStatus());
  return code === undefined ? error : new RequestError(code, error.message, { cause: error });
}
