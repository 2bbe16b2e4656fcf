import type { IncomingMessage, ServerResponse } from 'node:http';
import bytes from 'bytes';

type JsonParser = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
const parsers = new Map<number | string, Promise<JsonParser>>();

const parserFor = (limit: number | string): Promise<JsonParser> => {
  let parser = parsers.get(limit);
  if (parser === undefined) {
    // Loaded on first use, so that the Fastify platform needs no Express.
    parser = import('express').then((express) => express.default.json({ limit, type: 'application/json' }) as JsonParser);
    parsers.set(limit, parser);
  }
  return parser;
};

/**
 * The request's JSON body, parsed with the Express router's parser and limit when nobody parsed it yet (an app
 * created with `bodyParser: false`), else what the platform's parser already left in `body`.
 *
 * @throws The body parser's error (`type: 'entity.too.large'`, `'entity.parse.failed'`, …), for `toRequestError`.
 */
export async function readJsonBody(request: { body?: unknown; raw?: unknown }, res: ServerResponse, limit: number | string): Promise<unknown> {
  const req = request as IncomingMessage & { body?: unknown; _body?: boolean };
  if (request.raw !== undefined || req._body === true) {
    // Parsed by the platform under its own limit; still refuse what is over ours, as the router would.
    const length = Number((request.raw as IncomingMessage | undefined)?.headers['content-length'] ?? req.headers['content-length']);
    const max = bytes.parse(limit); // as body-parser reads its `limit`
    if (max !== null && length > max) throw Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413 });
    return request.body;
  }
  const parse = await parserFor(limit);
  await new Promise<void>((resolve, reject) => parse(req, res, (error) => (error === undefined ? resolve() : reject(error))));
  return req.body;
}
