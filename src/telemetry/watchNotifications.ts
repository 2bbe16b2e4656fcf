import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';

/** The handlers of {@link watchNotifications}; each is optional. */
export interface WatchNotificationsConfig<T> {
  /** At each subscription, before the source is subscribed. */
  subscribe?: () => void;
  /** With each value, before it is passed on. */
  next?: (value: T) => void;
  /** With the source's error, before it is passed on. */
  error?: (error: unknown) => void;
  /** At the source's completion, before it is passed on. */
  complete?: () => void;
  /** When the subscriber leaves before the source ended (not after an error or the completion). */
  unsubscribe?: () => void;
}

/**
 * rxjs's `tap` for telemetry's per-chunk path: the same handlers, called in the same order, with one subscriber per
 * subscription (the operators' `createOperatorSubscriber`) whose own `next()` method calls the `next` handler and
 * passes the value on. (`tap`'s subscriber is
 * reached through `Subscriber.prototype.next`, shared by every subscriber in the process and never inlined, then two
 * closures: a few calls more per chunk, twice per chunk on a traced call.)
 *
 * ```text
 * source:                          ──a──b──#          ──a──b──|          ──a──b──
 * watchNotifications(h):           ──a──b──#          ──a──b──|          ──a──b─!   (the subscriber leaves)
 * handlers:                        S  n  n  e          S  n  n  c          S  n  n  u
 *                                  S: subscribe  n: next  e: error  c: complete  u: unsubscribe
 * ```
 *
 * 1. Values, the error and the completion pass through unchanged, each after its handler.
 * 2. A handler that throws errors the output with what it threw (as `tap`'s).
 * 3. `unsubscribe` runs after the source was unsubscribed, only when the subscriber left before the end.
 *
 * @param config - The handlers.
 * @returns An operator that mirrors the source and calls the handlers.
 */
export function watchNotifications<T>(config: WatchNotificationsConfig<T>): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      config.subscribe?.();
      let ended = false; // completed or errored: `unsubscribe` is not called then
      const { next, error, complete } = config;
      source.subscribe(
        createOperatorSubscriber<T>(
          subscriber,
          next === undefined
            ? (value) => subscriber.next(value)
            : (value) => {
                next(value);
                subscriber.next(value);
              },
          () => {
            ended = true;
            complete?.();
          },
          (reason) => {
            ended = true;
            error?.(reason);
            subscriber.error(reason);
          },
        ),
      );
      return config.unsubscribe === undefined ? undefined : () => void (ended || config.unsubscribe?.());
    });
}
