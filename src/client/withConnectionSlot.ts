import { Observable, type Subscription } from 'rxjs';
import { AbortedError, CapacityError } from '../core/errors.js';
import type { ConnectionSlots } from './createConnectionSlots.js';

/** What {@link withConnectionSlot} needs besides the slots. */
export interface ConnectionSlotConfig {
  /** The pool's size, for the error message. */
  connections: number;
  /** The longest wait for a slot, for the error message. */
  waitMs: number;
  /** Aborting it ends a wait at once with an `AbortedError`. */
  signal?: AbortSignal;
}

/**
 * Subscribes to `source` (an upstream request) only once it holds one of the client's connection slots, and gives
 * the slot back when the subscription ends. When no slot frees up within the wait, errors with
 * `CapacityError('upstream_busy')` (a 503 with `Retry-After` for a client of the gateway) instead of queueing
 * silently; an abort during the wait errors with an `AbortedError`. Without `slots`, `source` is returned as is.
 *
 * @param source - The upstream request (cold).
 * @param slots - The client's slots, or `undefined` when the pool is not the client's own.
 * @param config - Pool size and wait (for the message), and the caller's signal.
 * @returns The request, run within a slot.
 */
export function withConnectionSlot<T>(
  source: Observable<T>,
  slots: ConnectionSlots | undefined,
  config: ConnectionSlotConfig,
): Observable<T> {
  if (slots === undefined) return source;
  return new Observable<T>((subscriber) => {
    const { signal } = config;
    let inner: Subscription | undefined;
    let release: (() => void) | undefined;
    const onAbort = (): void => subscriber.error(new AbortedError('the request was aborted', { cause: signal?.reason }));
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const cancel = slots.take(
      (free) => {
        release = free;
        signal?.removeEventListener('abort', onAbort);
        inner = source.subscribe(subscriber);
      },
      () =>
        subscriber.error(
          new CapacityError(
            'upstream_busy',
            `the upstream connection pool is busy: all ${config.connections} connections stayed in use for ${config.waitMs} ms; retry later`,
          ),
        ),
    );
    return () => {
      signal?.removeEventListener('abort', onAbort);
      cancel();
      inner?.unsubscribe();
      release?.();
    };
  });
}
