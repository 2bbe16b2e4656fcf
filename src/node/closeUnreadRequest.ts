import type { IncomingMessage } from 'node:http';

/** How long a refused request's remaining body may still arrive (and be discarded) before its connection is cut. */
const UNREAD_BODY_GRACE_MS = 1000;

/**
 * Ends the connection of a request whose response is written but whose body is not all read (a refusal before or
 * while reading it: 401, 413, 408, …): the rest of the body is discarded as it comes for at most `graceMs`, then the
 * socket is destroyed. Without it Node reads (dumps) the body of a finished response to keep the connection alive —
 * so a client trickling a body behind a refused key held its connection until Node's `requestTimeout` (300 s).
 * The grace lets the refusal reach a client that sends a whole body at once (closing with unread input resets the
 * connection, which may lose the response); a body that ends in time leaves the connection as HTTP says.
 *
 * @param req - The request; nothing happens when its body was read to the end.
 * @param graceMs - The longest wait for the rest of the body. Default 1000.
 */
export function closeUnreadRequest(req: IncomingMessage, graceMs = UNREAD_BODY_GRACE_MS): void {
  if (req.complete || req.socket.destroyed) return;
  const timer = setTimeout(() => req.socket.destroy(), graceMs);
  timer.unref();
  const done = (): void => clearTimeout(timer);
  req.once('end', done);
  req.once('close', done);
  req.resume();
}
