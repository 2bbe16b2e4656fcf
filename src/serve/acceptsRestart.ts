/** The request header by which a streaming client says it accepts a restarted answer (see {@link acceptsRestart}). */
export const ACCEPT_RESTART_HEADER = 'chatflux-accept-restart';

/**
 * Whether a request accepts a restarted answer: its `Chatflux-Accept-Restart` header is `true` (any case, spaces
 * around ignored). Such a client of a route gets, where a cut answer cannot be continued, a restart frame and then the
 * whole answer (`ChatCallOptions.acceptRestart`); any other gets the cut's error.
 *
 * @param value - The header's value (node's `req.headers[…]`, or a web `Headers.get(…)`).
 * @returns Whether it says `true`.
 */
export function acceptsRestart(value: string | readonly string[] | null | undefined): boolean {
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' && one.trim().toLowerCase() === 'true';
}
