import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import bytes from 'bytes';
import { jsonLengthExceeds } from './jsonLengthExceeds.js';

type JsonParser = ReturnType<typeof bodyParser.json>;
const parsers = new Map<number | string, JsonParser>();

const parserFor = (limit: number | string): JsonParser => {
  let parser = parsers.get(limit);
  if (parser === undefined) {
    parser = bodyParser.json({ limit, type: 'application/json' });
    parsers.set(limit, parser);
  }
  return parser;
};

/** What a platform's own body parser made of the body before the route ran: its value, or its refusal. */
export type PlatformBody = { value: unknown } | { error: unknown };

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
 * 4. Otherwise body-parser's JSON parser (the one inside `express.json()`) reads it: gzip/deflate/br inflated, UTF-8
 *    (and UTF-16/32) only, objects and arrays only, an empty body as `{}`. A `Content-Length` over `limit` is refused
 *    before anything is read; a body not complete within `timeoutMs` is refused (`type: 'request.timeout'`, 408).
 *
 * @param req - The node request (`req.body` is set by body-parser, as Express and Nest's pipes expect).
 * @param res - The response (body-parser's middleware signature; nothing is written to it).
 * @param limit - Bytes, or a string such as `'1mb'` (read with `bytes`, as body-parser reads it).
 * @param platform - The platform parser's result, when one ran and the stream is not the place to find the body.
 * @param timeoutMs - The longest wait for the whole body, in ms (`0`: none). Default 30000.
 * @returns The parsed body.
 * @throws body-parser's errors (`type: 'entity.too.large'`, `'entity.parse.failed'`, `'charset.unsupported'`, …)
 *   and `'request.timeout'`, which `toRequestError` words as the endpoint's 413, 400, 415 or 408.
 */
export async function readJsonBody(
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  limit: number | string,
  platform?: PlatformBody,
  timeoutMs = 30_000,
): Promise<unknown> {
  if (platform !== undefined && 'error' in platform) throw platform.error;
  const consumed = req.complete && !req.readable; // as body-parser's own "already parsed" test (on-finished)
  if (platform !== undefined || consumed) {
    const length = Number(req.headers['content-length']);
    const max = bytes.parse(limit);
    if (max !== null && length > max) {
      throw Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413 });
    }
    const value = platform === undefined ? req.body : platform.value;
    // No Content-Length (chunked), or a compressed one: the parsed body itself is held to the limit.
    if (max !== null && jsonLengthExceeds(value, max)) {
      throw Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413 });
    }
    return value;
  }
  const max = bytes.parse(limit);
  const length = Number(req.headers['content-length']);
  if (max !== null && length > max) {
    // At once, as body-parser's own error: it would read (dump) the whole body before refusing it.
    throw Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413, limit: max, length });
  }
  const parse = parserFor(limit);
  await new Promise<void>((resolve, reject) => {
    const timer =
      timeoutMs > 0
        ? setTimeout(() => reject(Object.assign(new Error(`request body not received within ${timeoutMs} ms`), { type: 'request.timeout', status: 408, timeoutMs })), timeoutMs)
        : undefined;
    parse(req, res, (error?: unknown) => {
      clearTimeout(timer);
      if (error === undefined) resolve();
      else reject(error);
    });
  });
  return req.body;
}
