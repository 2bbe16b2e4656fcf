import bytes from 'bytes';

/** An error shaped as body-parser's (its `type`), so `toRequestError` words it exactly as the node endpoints do. */
const parserError = (type: string, message: string, cause?: unknown): Error =>
  Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { type });

const DECOMPRESSED: Readonly<Record<string, CompressionFormat>> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate' };

/**
 * A web `Request`'s JSON body, read once under `limit`, with body-parser's rules (what `express.json()` and the node
 * endpoints apply): `Content-Length` over the limit refused before reading, the bytes counted while reading, gzip and
 * deflate inflated, UTF-8 only, objects and arrays only, an empty body as `{}`.
 *
 * @param request - The request.
 * @param limit - Bytes, or a string such as `'1mb'`.
 * @param timeoutMs - The longest wait for the whole body, in ms (`0`: none); slower: `request.timeout` (408). Default 30000.
 * @returns The parsed body.
 * @throws Errors with body-parser's `type` (`entity.too.large`, `entity.parse.failed`, `encoding.unsupported`,
 *   `charset.unsupported`, `request.aborted`) or `request.timeout`, which `toRequestError` turns into the endpoint's
 *   413, 400, 415 or 408.
 */
export async function readRequestJson(request: Request, limit: number | string, timeoutMs = 30_000): Promise<unknown> {
  const max = bytes.parse(limit) ?? Infinity;
  const length = Number(request.headers.get('content-length') ?? Number.NaN);
  if (length > max) throw parserError('entity.too.large', 'request entity too large');
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers.get('content-type') ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw parserError('charset.unsupported', `unsupported charset "${charset}"`);
  const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && DECOMPRESSED[encoding] === undefined) throw parserError('encoding.unsupported', `unsupported content encoding "${encoding}"`);
  let text = '';
  if (request.body !== null) {
    const format = DECOMPRESSED[encoding];
    const stream = format === undefined ? request.body : request.body.pipeThrough(new DecompressionStream(format));
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const reader = stream.getReader();
    let received = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline =
      timeoutMs > 0
        ? new Promise<never>((_resolve, reject) => {
            timer = setTimeout(() => {
              void reader.cancel().catch(() => undefined);
              reject(Object.assign(new Error(`request body not received within ${timeoutMs} ms`), { type: 'request.timeout', status: 408, timeoutMs }));
            }, timeoutMs);
          })
        : undefined;
    deadline?.catch(() => undefined);
    try {
      for (;;) {
        const { done, value } = await (deadline === undefined ? reader.read() : Promise.race([reader.read(), deadline]));
        if (done) break;
        received += value.byteLength;
        if (received > max) {
          void reader.cancel().catch(() => undefined);
          throw parserError('entity.too.large', 'request entity too large');
        }
        text += decoder.decode(value, { stream: true });
      }
      text += decoder.decode();
    } catch (error) {
      if ((error as { type?: unknown } | null)?.type !== undefined) throw error;
      throw parserError(error instanceof TypeError && /encoded data|decode/i.test(error.message) ? 'entity.parse.failed' : 'request.aborted', 'the request body could not be read', error);
    } finally {
      clearTimeout(timer);
    }
  }
  if (text.trim() === '') return {};
  if (!/^[\s\uFEFF]*[[{]/.test(text)) throw parserError('entity.parse.failed', 'the body is neither a JSON object nor an array');
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (error) {
    throw parserError('entity.parse.failed', 'the request body is not valid JSON', error);
  }
}
