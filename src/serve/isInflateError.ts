/**
 * Whether `error` is zlib's refusal of bytes that do not inflate as their `Content-Encoding` says: gzip that is not
 * gzip (`Z_DATA_ERROR`), a truncated stream (`Z_BUF_ERROR`), a corrupt `br` (`ERR__ERROR_FORMAT_…`) — a string
 * `code` of zlib's and a numeric `errno`. Node's `zlib` streams and its `DecompressionStream` throw them; a client's
 * disconnect (`ECONNRESET`, `ERR_STREAM_PREMATURE_CLOSE` without `errno`) is not one.
 *
 * @param error - What a read of an inflated body threw.
 * @returns Whether the body's bytes did not inflate.
 */
export function isInflateError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return typeof code === 'string' && /^(Z_|ERR_)/.test(code) && typeof errno === 'number';
}
