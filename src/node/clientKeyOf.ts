import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

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
  const token = byKey ? /^Bearer[ \t]+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] : undefined;
  if (token !== undefined) return `key:${createHash('sha256').update(token, 'utf8').digest('base64url').slice(0, 22)}`;
  return `addr:${req.socket.remoteAddress ?? 'unknown'}`;
}
