import type { BodySource } from '../source/createBodyReader.js';
import { readJsonChunks } from '../serve/readJsonChunks.js';

/** The content codings the web removes, with `DecompressionStream` (`x-gzip` is gzip, RFC 9110 §8.4.1.3). */
const DECOMPRESSED: ReadonlyMap<string, CompressionFormat> = new Map<string, CompressionFormat>([
  ['gzip', 'gzip'],
  ['x-gzip', 'gzip'],
  ['deflate', 'deflate'],
]);

/** No bytes: the body of a request without one. */
async function* noBytes(): AsyncGenerator<Uint8Array> {}

/**
 * A web `Request`'s JSON body, read once under `limit` by the serving core's reader (`readJsonChunks`, `express.json()`'s
 * rules, as the node endpoints read theirs): `Content-Length` over the limit refused before reading, the bytes counted
 * while reading, gzip and deflate inflated here (`DecompressionStream`), UTF-8 only, objects and arrays only, an empty
 * body as `{}`.
 *
 * @param request - The request.
 * @param limit - Bytes, or a string such as `'1mb'`.
 * @param timeoutMs - The longest wait for the whole body, in ms (`0`: none); slower: `request.timeout` (408). Default 30000.
 * @returns The parsed body.
 * @throws The body errors of `readJsonChunks` (`type: 'entity.too.large'`, `'entity.parse.failed'`,
 *   `'encoding.unsupported'`, `'charset.unsupported'`, `'request.aborted'`, `'request.timeout'`, …), which
 *   `toRequestError` turns into the endpoint's 413, 400, 415 or 408.
 */
export function readRequestJson(request: Request, limit: number | string, timeoutMs = 30_000): Promise<unknown> {
  return readJsonChunks(
    {
      header: (name) => request.headers.get(name) ?? undefined,
      open: (coding): BodySource | undefined => {
        const format = DECOMPRESSED.get(coding);
        if (coding !== 'identity' && format === undefined) return undefined;
        if (request.body === null) return noBytes();
        return format === undefined ? request.body : request.body.pipeThrough(new DecompressionStream(format));
      },
    },
    { limit, timeoutMs },
  );
}
