import { request, type IncomingHttpHeaders } from 'node:http';

/** What came over the wire for one request, read with node:http directly. */
export interface RawResponse {
  /** 0 when no response head arrived. */
  status: number;
  headers: IncomingHttpHeaders;
  /** Every byte of the body. */
  body: Buffer;
  /** The body as the socket delivered it. */
  pieces: Buffer[];
  /** The body ended cleanly. */
  ended: boolean;
  /** The connection failed (reset, hang-up). */
  error: NodeJS.ErrnoException | undefined;
}

/** Options of {@link rawPost}. */
export interface RawPostOptions {
  headers?: Record<string, string>;
  /** Give up (destroy the request) after this many ms and resolve with what arrived. */
  stopAfterMs?: number;
  /** Path below the base URL (default `/chat/completions`). */
  path?: string;
}

/** POSTs `body` as JSON to `${baseUrl}/chat/completions` on a fresh connection and collects the raw response. */
export function rawPost(baseUrl: string, body: unknown, options: RawPostOptions = {}): Promise<RawResponse> {
  return new Promise((resolve) => {
    const out: RawResponse = {
      status: 0,
      headers: {},
      body: Buffer.alloc(0),
      pieces: [],
      ended: false,
      error: undefined,
    };
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      out.body = Buffer.concat(out.pieces);
      resolve(out);
    };
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(`${baseUrl}${options.path ?? '/chat/completions'}`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', ...options.headers },
    });
    req.on('response', (res) => {
      out.status = res.statusCode ?? 0;
      out.headers = res.headers;
      res.on('data', (piece: Buffer) => out.pieces.push(piece));
      res.on('end', () => {
        out.ended = true;
        finish();
      });
      res.on('error', (error) => {
        out.error = error;
        finish();
      });
      res.on('close', finish);
    });
    req.on('error', (error) => {
      out.error = error;
      finish();
    });
    if (options.stopAfterMs !== undefined) {
      timer = setTimeout(() => {
        req.destroy();
        finish();
      }, options.stopAfterMs);
    }
    req.end(payload);
  });
}

/** The `data:` payloads of an SSE text with LF endings (comments and other lines dropped). */
export const dataOf = (text: string): string[] =>
  text
    .split('\n\n')
    .flatMap((block) => block.split('\n'))
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length));
