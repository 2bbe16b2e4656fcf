import { RequestError } from '../core/errors.js';

/**
 * Turns an error of Express's JSON body parser (`body-parser`'s `type` field) into the {@link RequestError} that the
 * endpoint writes: 413 for a body over the limit, 415 for an unsupported encoding or charset, 400 otherwise.
 *
 * @param error - What the body parser passed to `next`.
 * @param limit - The configured body limit, for the message.
 * @returns The request error, or `undefined` when `error` is not a body-parser error.
 */
export function toRequestError(error: unknown, limit: number | string): RequestError | undefined {
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  switch (type) {
    case 'entity.too.large':
      return new RequestError('payload_too_large', `the request body is larger than the limit of ${String(limit)} bytes`, { cause: error });
    case 'entity.parse.failed':
      return new RequestError('invalid_request', 'the request body is not valid JSON', { cause: error });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new RequestError('unsupported_media_type', 'the request body must be UTF-8 JSON (Content-Type: application/json)', { cause: error });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return new RequestError('invalid_request', 'the request body could not be read', { cause: error });
    default:
      return undefined;
  }
}
