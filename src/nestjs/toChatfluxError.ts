import { HttpException } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { isChatfluxError, RequestError } from '../core/errors.js';
import { PUBLIC_ERROR_RESPONSE, type PublicErrorResponse } from '../core/publicErrorResponse.js';
import { toRequestError } from '../node/toRequestError.js';

const BY_STATUS = new Map<number, 'invalid_request' | 'unauthorized' | 'payload_too_large' | 'unsupported_media_type'>([
  [400, 'invalid_request'],
  [401, 'unauthorized'],
  [413, 'payload_too_large'],
  [415, 'unsupported_media_type'],
]);

/** The wire `code` of a status: `rate_limited` for 429, else its reason phrase in snake case (`forbidden`, `not_found`). */
const codeOf = (status: number): string =>
  status === 429
    ? 'rate_limited'
    : (STATUS_CODES[status] ?? `http_${status}`)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, '');

/** What a client is told: the exception's message, or the messages of its response body (a `ValidationPipe`'s list). */
const messageOf = (exception: HttpException): string => {
  const response = exception.getResponse() as { message?: unknown } | string;
  const message = typeof response === 'object' && response !== null ? response.message : undefined;
  if (Array.isArray(message) && message.every((item) => typeof item === 'string')) return message.join('; ');
  return exception.message;
};

/**
 * What Nest or a body parser threw, as an error that `toErrorResponse` gives the contract's status and body:
 *
 * 1. chatflux errors pass unchanged;
 * 2. body-parser failures (`entity.parse.failed`, `entity.too.large`, charset/encoding) are worded as the Express
 *    router words them (400, 413, 415);
 * 3. Nest's `HttpException`s with 400, 401, 413 or 415 become the matching {@link RequestError}s; any other 4xx, and
 *    503, keep their status with `type` `invalid_request_error` (`rate_limit_error` for 429, `server_error` for 503)
 *    and a `code` from the status (`forbidden`, `not_found`, `rate_limited`, `service_unavailable`);
 * 4. anything else passes unchanged, and becomes a 500 that discloses nothing.
 */
export function toChatfluxError(error: unknown): unknown {
  if (isChatfluxError(error)) return error;
  const limit = (error as { limit?: unknown } | null)?.limit;
  const parsed = toRequestError(error, typeof limit === 'number' ? limit : '1mb');
  if (parsed !== undefined) return parsed;
  if (!(error instanceof HttpException)) return error;
  const status = error.getStatus();
  const code = BY_STATUS.get(status);
  if (code !== undefined) return new RequestError(code, messageOf(error), { cause: error });
  if ((status < 400 || status > 499) && status !== 503) return error;
  const response: PublicErrorResponse = {
    status,
    type: status === 429 ? 'rate_limit_error' : status === 503 ? 'server_error' : 'invalid_request_error',
    code: codeOf(status),
  };
  return Object.assign(new Error(messageOf(error), { cause: error }), { [PUBLIC_ERROR_RESPONSE]: response });
}
