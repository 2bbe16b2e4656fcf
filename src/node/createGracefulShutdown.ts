import { setMaxListeners } from 'node:events';
import { ShutdownError } from '../core/errors.js';

/** The graceful shutdown of a set of responses: see {@link createGracefulShutdown}. */
export interface GracefulShutdown {
  /** Aborted with a `ShutdownError` when the grace period is over (or when the outer signal aborts): the writers' `signal`. */
  readonly signal: AbortSignal;
  /** True once {@link GracefulShutdown.drain} was called: new requests should be refused. */
  readonly isDraining: boolean;
  /** Counts a response as in flight until `written` settles; returns `written`. */
  track<T>(written: Promise<T>): Promise<T>;
  /**
   * Starts the shutdown (once; later calls return the same promise): waits up to `graceMs` for the responses in flight,
   * then aborts {@link GracefulShutdown.signal} with `reason`, and waits at most 1 s more for them to end.
   */
  drain(graceMs: number, reason?: ShutdownError): Promise<void>;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Creates the shutdown shared by the gateway (`startGateway().close()`) and `ChatfluxModule` (`app.close()`): responses
 * in flight get a grace period, those still running then end with a `ShutdownError` through the writers' `signal` — a
 * 503 with `Retry-After` before the commit, the in-band `shutting_down` frame after it.
 *
 * @param outer - Another signal that ends the responses too (a config's own `signal`), merged in.
 * @returns The shutdown.
 */
export function createGracefulShutdown(outer?: AbortSignal): GracefulShutdown {
  const controller = new AbortController();
  const signal = outer === undefined ? controller.signal : AbortSignal.any([controller.signal, outer]);
  setMaxListeners(0, signal); // one `abort` listener per response in flight: no MaxListenersExceededWarning
  const inFlight = new Set<Promise<unknown>>();
  const settled = (): Promise<unknown> => Promise.allSettled([...inFlight]);
  let draining: Promise<void> | undefined;
  return {
    signal,
    get isDraining() {
      return draining !== undefined;
    },
    track(written) {
      inFlight.add(written);
      void written.finally(() => inFlight.delete(written)).catch(() => undefined);
      return written;
    },
    drain(graceMs, reason = new ShutdownError()) {
      draining ??= (async () => {
        if (inFlight.size > 0) await Promise.race([settled(), delay(graceMs)]);
        controller.abort(reason);
        await Promise.race([settled(), delay(1000)]); // the writers end at once; a stuck socket must not hold the shutdown
      })();
      return draining;
    },
  };
}
