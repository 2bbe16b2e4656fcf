import { setMaxListeners } from 'node:events';
import { createGracefulShutdown, type GracefulShutdown } from '../node/createGracefulShutdown.js';

/**
 * The graceful shutdown of one `ChatfluxModule`, run by `app.close()` (what `enableShutdownHooks()` calls on SIGTERM)
 * before the HTTP server and the client are closed:
 *
 * 1. From then on, a new request to the module's routes or to a decorated handler is refused with a 503
 *    `shutting_down` and `Retry-After` (Nest still accepts connections until the server closes).
 * 2. Responses in flight get `graceMs` to finish.
 * 3. Those still running are ended with a `ShutdownError` through the writers' signal: a 503 with `Retry-After`
 *    before the commit, the in-band `shutting_down` error frame after it. Their upstream requests are aborted.
 */
export class ChatfluxShutdown {
  /** Aborted (with a `ShutdownError`) when the grace period is over, or when the config's own signal aborts. */
  readonly signal: AbortSignal;
  private readonly shutdown: GracefulShutdown;

  /**
   * @param graceMs How long responses in flight may still run once the shutdown began.
   * @param outer The config's `signal`, merged in.
   */
  constructor(
    private readonly graceMs: number,
    outer?: AbortSignal,
  ) {
    this.shutdown = createGracefulShutdown(outer);
    this.signal = this.shutdown.signal;
  }

  /** True once the shutdown began: new requests are refused. */
  get isDraining(): boolean {
    return this.shutdown.isDraining;
  }

  /** The module's signal merged with `other` (a decorator's own `signal`), for one writer config. */
  with(other: AbortSignal | undefined): AbortSignal {
    if (other === undefined) return this.signal;
    const signal = AbortSignal.any([this.signal, other]);
    setMaxListeners(0, signal);
    return signal;
  }

  /** Counts the response `written` as in flight until its writer's promise settles. */
  track<T>(written: Promise<T>): Promise<T> {
    return this.shutdown.track(written);
  }

  /** Refuses new requests, waits up to `graceMs` for the responses in flight, then ends the rest (once). */
  drain(): Promise<void> {
    return this.shutdown.drain(this.graceMs);
  }
}
