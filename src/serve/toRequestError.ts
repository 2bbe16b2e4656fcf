import bytes from 'bytes';
import { RequestError } from '../core/errors.js';

/** The `Content-Encoding`s body-parser inflates. */
const ENCODINGS = 'gzip, deflate or br, or no Content-Encoding';

/**
 * Turns an error of Express's JSON body parser (`body-parser`'s `type` field) into the {@link RequestError} that the
 * endpoint writes: 413 for a body over the limit, 415 for an unsupported encoding or charset, 408 for a body slower
 * than its deadline (`readJsonBody`'s `request.timeout`), 400 otherwise — a body
 * that does not inflate as its `Content-Encoding` says (gzip that is not gzip, a corrupt `br`, a truncated stream:
 * zlib's error, which body-parser passes on with `status: 400` and no `type`) included.
 *
 * @param error - What the body parser passed to `next`.
 * @param limit - The configured body limit, for the message.
 * @returns The request error, or `undefined` when `error` is not a body-parser error.
 */
export function toRequestError(error: unknown, limit: number | string): RequestError | undefined {
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  switch (type) {
    case 'entity.too.large':
      // In bytes: the default `'1mb'` is `1048576`, not "1mb bytes".
      return new RequestError('payload_too_large', `the request body is larger than the limit of ${String(bytes.parse(limit) ?? limit)} bytes`, { cause: error });
    case 'entity.parse.failed':
      return new RequestError('invalid_request', 'the request body is not valid JSON', { cause: error });
    case 'encoding.unsupported':
      return new RequestError('unsupported_media_type', `the request's Content-Encoding is not supported: send ${ENCODINGS}`, { cause: error });
    case 'charset.unsupported':
      return new RequestError('unsupported_media_type', 'the request body must be UTF-8 JSON (Content-Type: application/json)', { cause: error });
    case 'request.timeout':
      return new RequestError('request_timeout', `the request body did not arrive within ${String((error as { timeoutMs?: unknown }).timeoutMs)} ms`, { cause: error });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return new RequestError('invalid_request', 'the request body could not be read', { cause: error });
    default:
      return isDecodingError(error)
        ? new RequestError('invalid_request', `the request body does not decode as its Content-Encoding says: send ${ENCODINGS}`, { cause: error })
        : undefined;
  }
}

/** A zlib error (`Z_DATA_ERROR`, `Z_BUF_ERROR`, brotli's `ERR__ERROR_FORMAT_…`) that body-parser passed on as a 400. */
function isDecodingError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { status, code, errno } = error as { status?: unknown; code?: unknown; errno?: unknown };
  return status === 400 && typeof code === 'string' && (/^Z_/.test(code) || /^ERR_/.test(code)) && typeof errno === 'number';
}
