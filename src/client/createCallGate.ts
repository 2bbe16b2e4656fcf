import { Observable } from 'rxjs';
import { ConfigError } from '../core/errors.js';

/** The calls of a client or a route: refused once it is closed, counted until they end (for a graceful close). */
export interface CallGate {
  /**
   * One call: `run()`'s Observable, subscribed as it is (no hop per value). Refused with a `ConfigError` once the gate
   * is closed; counted in flight from its subscription to its end — retries and the waits between them included.
   */
  track<T>(run: () => Observable<T>): Observable<T>;
  /** Refuses every call from now on. */
  close(): void;
  /** Waits until no call is in flight, or `graceMs` has passed (at once when none is, or `graceMs` is 0). */
  drain(graceMs: number): Promise<void>;
}

/**
 * Creates a {@link CallGate}, shared by `createChatClient` and `createChatRoute`: a call waiting to retry or to fail
 * over has no upstream request under way, so a graceful close counts calls, not requests.
 *
 * @param closedMessage - The `ConfigError` message of a call made after `close()` (say what to create instead).
 * @returns The gate.
 */
export function createCallGate(closedMessage: string): CallGate {
  let closed = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  return {
    track: <T>(run: () => Observable<T>): Observable<T> =>
      new Observable<T>((subscriber) => {
        if (closed) throw new ConfigError(closedMessage);
        inFlight++;
        subscriber.add(() => {
          if (--inFlight === 0) drained?.();
        });
        run().subscribe(subscriber);
      }),
    close: () => {
      closed = true;
    },
    drain: async (graceMs) => {
      if (graceMs <= 0 || inFlight === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}
