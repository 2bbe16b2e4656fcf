import type { Readable } from 'node:stream';

/** Limits of {@link drainBody}. */
export interface DrainBodyConfig {
  /** The most bytes read before giving up (default 16 KiB). */
  maxBytes?: number;
  /** The longest wait for the end of the body before giving up, in ms (default 1000). */
  timeoutMs?: number;
  /** Called once if the body has not ended within the limits (after it was destroyed), e.g. to abort the request. */
  onGiveUp?: () => void;
}

/**
 * Reads and discards the rest of a response body whose content is no longer wanted, so that undici sees its end and
 * keeps the connection for the next request; past `maxBytes` or `timeoutMs` the body is destroyed (and with it the
 * socket). Errors are swallowed: nobody waits for this body any more.
 *
 * Not undici's `body.dump({ limit })`: its limit counts every byte of the body, including those already consumed,
 * so a long answer would always exceed it.
 */
export function drainBody(body: Readable, config: DrainBodyConfig = {}): void {
  const maxBytes = config.maxBytes ?? 16 * 1024;
  let seen = 0;
  const giveUp = (): void => {
    body.destroy();
    config.onGiveUp?.();
  };
  const onData = (chunk: { length: number }): void => {
    seen += chunk.length;
    if (seen > maxBytes) giveUp();
  };
  const timer = setTimeout(giveUp, config.timeoutMs ?? 1000).unref(); // never holds a process open
  body.on('error', () => undefined);
  if (body.destroyed || body.readableEnded) return clearTimeout(timer);
  body.once('close', () => {
    clearTimeout(timer);
    body.off('data', onData);
  });
  body.on('data', onData).resume();
}
