import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { throwError } from 'rxjs';
import { RequestError } from 'chatflux';
import { CHAT_WIRES } from 'chatflux/node';

/** The rate-limit headers a response may carry (`limits`: its admission, its 429), besides `Retry-After`. */
const RATE_LIMIT_HEADERS = [
  ...['limit', 'remaining', 'reset'].flatMap((what) => [`x-ratelimit-${what}-requests`, `x-ratelimit-${what}-tokens`]),
  'RateLimit',
  'RateLimit-Policy',
  'retry-after-ms',
  'x-should-retry',
];

/**
 * The gateway's cross-origin policy, as middleware: CORS for the origins of `allowed` only (`cors`: preflights
 * answered, `Authorization`, `Content-Type`, `Chatflux-Accept-Restart` and `Last-Event-ID` allowed, `Retry-After`, the rate-limit headers, `Chatflux-Stream-Id` and `Chatflux-Resumable` exposed; no `Access-Control-Allow-Origin` for anyone else, so a page of
 * another site cannot read an answer), and `GET /chat/sse` refused (403 `forbidden`, in SSE) when a browser says it
 * comes from another site (`Sec-Fetch-Site: cross-site` or `same-site`) whose origin is not allowed: an `<img>`, a
 * link or an `EventSource` on some other page cannot make an open gateway spend tokens. Clients that are not
 * browsers send no `Sec-Fetch-Site` and are served as before.
 *
 * Every response after it says `Vary: Origin` — for an allowed origin, a refused one and none alike (`cors` adds it
 * only to the allowed): each depends on the `Origin`, so a shared cache must not serve one origin's response (with
 * or without `Access-Control-Allow-Origin`, or a 403) to another.
 *
 * @param allowed - Origins allowed (`CHATFLUX_CORS_ORIGINS`); empty: no cross-origin access.
 * @returns The middleware, to mount before the chat router.
 */
export function crossOriginPolicy(allowed: readonly string[]): RequestHandler[] {
  const allows = (origin: string | undefined): boolean => origin !== undefined && allowed.includes(origin);
  const corsHandler = cors({
    origin: (origin, callback) => callback(null, allows(origin)),
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Chatflux-Accept-Restart', 'Last-Event-ID'],
    // Not CORS-safelisted response headers: without this a page could not read how long a 429 / 503 asks it to wait,
    // its rate limits (OpenAI's x-ratelimit-*, the IETF RateLimit fields, whether to retry), or its answer's stream id.
    exposedHeaders: ['Retry-After', 'Chatflux-Stream-Id', 'Chatflux-Resumable', ...RATE_LIMIT_HEADERS],
    maxAge: 600,
  });
  const vary: RequestHandler = (_req, res, next) => {
    res.vary('Origin');
    next();
  };
  const guard: RequestHandler = (req, res, next) => {
    const site = req.headers['sec-fetch-site'];
    const crossSite = site === 'cross-site' || site === 'same-site';
    if ((req.method === 'GET' || req.method === 'HEAD') && /^\/chat\/sse\/?$/i.test(req.path) && crossSite && !allows(req.headers.origin)) {
      refuse(req, res);
      return;
    }
    next();
  };
  return [vary, corsHandler, guard];
}

function refuse(_req: IncomingMessage, res: ServerResponse): void {
  const error = new RequestError('forbidden', 'GET /chat/sse is not open to pages of other sites: add their origin to CHATFLUX_CORS_ORIGINS');
  void CHAT_WIRES.sse.send(res, throwError(() => error), {});
}
