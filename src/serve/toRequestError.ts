import { RequestError } from '../core/errors.js';
import { isInflateError } from './isInflateError.js';
import { parseByteLimit } from './parseByteLimit.js';

/** The `Content-Encoding`s node's body reader inflates (and `express.json()`). */
const ENCODINGS = 'gzip, deflate or br, or no Content-Encoding';

/**
 * Turns a body reader's refusal — the serving core's own (`readJsonChunks`, its `bodyError`s) or that of a platform's
 * parser that read the body first (an app's `express.json()`, Nest's: the errors of Express's JSON parser, with the same `type`
 * field) — into the {@link RequestError} that the endpoint writes: 413 for a body over the limit, 415 for an
 * unsupported encoding or charset, 408 for a body slower than its deadline (`request.timeout`), 400 otherwise — a body
 * that does not inflate as its `Content-Encoding` says (gzip that is not gzip, a corrupt `br`, a truncated stream:
 * our `encoding.failed`, or zlib's error, which `express.json()` passes on with `status: 400` and no `type`) included.
 *
 * @param error - What the body reader threw (or the parser passed to `next`).
 * @param limit - The configured body limit, for the message.
 * @returns The request error, or `undefined` when `error` is not a body reader's refusal.
 */
export function toRequestError(error: unknown, limit: number | string): RequestError | undefined {
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  switch (type) {
    case 'entity.too.large':
      // In bytes: the default `'1mb'` is `1048576`, not "1mb bytes".
      return new RequestError('payload_too_large', `the request body is larger than the limit of ${String(parseByteLimit(limit))} bytes`, { cause: error });
    case 'entity.parse.failed':
      return new RequestError('invalid_request', 'the request body is not valid JSON', { cause: error });
    case 'encoding.unsupported':
      return new RequestError('unsupported_media_type', `the request's Content-Encoding is not supported: send ${ENCODINGS}`, { cause: error });
    case 'charset.unsupported':
      return new RequestError('unsupported_media_type', 'the request body must be UTF-8 JSON (Content-Type: application/json)', { cause: error });
    case 'request.timeout':
      return new RequestError('request_timeout', `the request body did not arrive within ${String((error as { timeoutMs?: unknown }).timeoutMs)} ms`, { cause: error });
    case 'encoding.failed':
      return decodingError(error);
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return new RequestError('invalid_request', 'the request body could not be read', { cause: error });
    default:
      // zlib's error (`Z_DATA_ERROR`, `Z_BUF_ERROR`, brotli's `ERR__ERROR_FORMAT_…`) that `express.json()` passed on as a 400
      return isInflateError(error) && (error as { status?: unknown }).status === 400 ? decodingError(error) : undefined;
  }
}

const decodingError = (cause: unknown): RequestError =>
  new RequestError('invalid_request', `the request body does not decode as its Content-Encoding says: send ${ENCODINGS}`, { cause });
