import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { bodyError } from '../serve/bodyError.js';
import { parseByteLimit } from '../serve/parseByteLimit.js';
import { parseMediaType } from '../serve/parseMediaType.js';
import { readJsonChunks, type JsonBodySource } from '../serve/readJsonChunks.js';
import { hasBody } from './hasBody.js';
import { jsonLengthExceeds } from './jsonLengthExceeds.js';

/** What a platform's own body parser made of the body before the route ran: its value, or its refusal. */
export type PlatformBody = { value: unknown } | { error: unknown };

/** The content codings node removes besides `identity`, with `node:zlib` (as `express.json()` does; `x-gzip` is gzip, RFC 9110 §8.4.1.3). */
const INFLATERS: ReadonlyMap<string, () => Transform> = new Map<string, () => Transform>([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

/**
 * The request as `readJsonChunks` reads it: its bytes as they come (`identity`), or through an inflater piped from
 * it, which the request's failure (the client gone) fails. When the read stops early only the inflater is destroyed
 * (and unpiped): the request, whose connection carries the response, is left to the endpoint, which discards the rest
 * of the body or closes the connection (`closeUnreadRequest`).
 */
function bodySource(req: IncomingMessage): JsonBodySource {
  let inflater: Transform | undefined;
  return {
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    },
    open: (coding) => {
      if (coding === 'identity') return req;
      const create = INFLATERS.get(coding);
      if (create === undefined) return undefined;
      const stream = create();
      const fail = (error: unknown): void => void stream.destroy(error instanceof Error ? error : new Error(String(error)));
      const closed = (): void => {
        if (!req.complete) fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      };
      req.on('error', fail).once('close', closed);
      stream.once('close', () => {
        req.unpipe(stream);
        req.off('error', fail).off('close', closed);
      });
      inflater = req.pipe(stream);
      return inflater;
    },
    stop: () => inflater?.destroy(),
  };
}

/**
 * The request's JSON body, read once, under `limit`:
 *
 * 1. `platform` given: what the platform's parser (Nest's default parser, Fastify's) made of it — its refusal is thrown
 *    as is, its value is returned.
 * 2. A body some middleware already read (Express's `express.json()` in the app, Nest's default parser: the request
 *    stream is consumed) is taken from `req.body`.
 * 3. In both cases a `Content-Length` over `limit` is still refused (413), and so is a parsed body whose JSON is longer
 *    than `limit` (chunked, or compressed: `jsonLengthExceeds`), so the endpoint's own limit holds whatever parser ran
 *    first. (That parser's limit may be the smaller one: its refusal then names it.)
 * 4. A request without a body, or whose `Content-Type` is not `application/json`, is left alone (`req.body` as it is),
 *    as `express.json()` leaves it.
 * 5. Otherwise the serving core's reader (`readJsonChunks`) reads it, with `express.json()`'s rules: gzip, deflate and br
 *    inflated here (`node:zlib`), the limit counted after inflating, UTF-8 only, objects and arrays only, an empty body
 *    as `{}`. A `Content-Length` over `limit` is refused before anything is read; a body not complete within
 *    `timeoutMs` is refused (`type: 'request.timeout'`, 408). The value is set as `req.body`, as Nest's pipes expect.
 *
 * @param req - The node request.
 * @param limit - Bytes, or a string such as `'1mb'` (`parseByteLimit`).
 * @param platform - The platform parser's result, when one ran and the stream is not the place to find the body.
 * @param timeoutMs - The longest wait for the whole body, in ms (`0`: none). Default 30000.
 * @returns The parsed body.
 * @throws The body errors of `readJsonChunks` (`type: 'entity.too.large'`, `'entity.parse.failed'`,
 *   `'charset.unsupported'`, …, `'request.timeout'`), or the platform parser's, which `toRequestError` words as the
 *   endpoint's 413, 400, 415 or 408.
 */
export async function readJsonBody(req: IncomingMessage & { body?: unknown }, limit: number | string, platform?: PlatformBody, timeoutMs = 30_000): Promise<unknown> {
  if (platform !== undefined && 'error' in platform) throw platform.error;
  const consumed = req.complete && !req.readable; // as `express.json()`'s own "already parsed" test
  if (platform !== undefined || consumed) {
    const length = Number(req.headers['content-length']);
    const max = parseByteLimit(limit);
    if (length > max) throw bodyError('entity.too.large', 'request entity too large', { limit: max, length });
    const value = platform === undefined ? req.body : platform.value;
    // No Content-Length (chunked), or a compressed one: the parsed body itself is held to the limit.
    if (jsonLengthExceeds(value, max)) throw bodyError('entity.too.large', 'request entity too large', { limit: max });
    return value;
  }
  if (!('body' in req)) req.body = undefined;
  if (!hasBody(req) || parseMediaType(req.headers['content-type'])?.type !== 'application/json') return req.body;
  req.body = await readJsonChunks(bodySource(req), { limit, timeoutMs });
  return req.body;
}
