import type { IncomingMessage } from 'node:http';
import { bearerClientKey } from '../serve/bearerClientKey.js';

/**
 * Who a request comes from, for a per-client limit (`createConcurrencyLimiter`): its Bearer key when `byKey` (the
 * gateway's keys identify clients; the key itself is hashed, never kept), else the remote address of its connection.
 * Behind a reverse proxy every client shares the proxy's address: key by API key, or pass your own key function
 * (e.g. Express's `req.ip` with `trust proxy`).
 *
 * @param req - The request (Express's `req` is one).
 * @param byKey - Identify clients by their Bearer key when they send one.
 * @returns `key:<hash>` or `addr:<address>`.
 */
export function clientKeyOf(req: IncomingMessage, byKey: boolean): string {
  const key = byKey ? bearerClientKey(req.headers.authorization) : undefined;
  if (key !== undefined) return key;
  return `addr:${req.socket.remoteAddress ?? 'unknown'}`;
}
