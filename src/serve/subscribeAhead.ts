import { Observable, type Subscription } from 'rxjs';

/** A source subscribed ahead of its consumer: see {@link subscribeAhead}. */
export interface SubscribedAhead<T> {
  /** The source's notifications: those held so far, then the live ones. Subscribe once; unsubscribing unsubscribes the source. */
  readonly source: Observable<T>;
  /** Unsubscribes the source and drops what it held (its consumer will not come). */
  cancel(): void;
}

type Held<T> = { kind: 'next'; value: T } | { kind: 'error'; error: unknown } | { kind: 'complete' };

/**
 * Subscribes to `source` now, before its consumer is ready (the serving core starts the upstream request while the
 * stream log opens), and holds what it emits until that consumer subscribes to `source` of the result: then the
 * held notifications are replayed in order, and the live ones passed on as they come. One consumer; its
 * unsubscription (or `cancel`) unsubscribes the source, which aborts an upstream request.
 *
 * ```text
 * source:             --a--b---c--|
 * consumer subscribes:        ^
 * consumer gets:              (ab)c--|
 * ```
 *
 * @param source - The cold source to start now.
 * @returns The held-then-live source, and `cancel` for a consumer that will not come.
 */
export function subscribeAhead<T>(source: Observable<T>): SubscribedAhead<T> {
  let held: Held<T>[] | undefined = [];
  let consumer: { next(value: T): void; error(error: unknown): void; complete(): void } | undefined;
  const upstream: Subscription = source.subscribe({
    next: (value) => (consumer === undefined ? held?.push({ kind: 'next', value }) : consumer.next(value)),
    error: (error: unknown) => (consumer === undefined ? held?.push({ kind: 'error', error }) : consumer.error(error)),
    complete: () => (consumer === undefined ? held?.push({ kind: 'complete' }) : consumer.complete()),
  });
  return {
    source: new Observable<T>((subscriber) => {
      const replay = held ?? [];
      held = undefined;
      for (const notification of replay) {
        if (subscriber.closed) break;
        if (notification.kind === 'next') subscriber.next(notification.value);
        else if (notification.kind === 'error') subscriber.error(notification.error);
        else subscriber.complete();
      }
      if (!subscriber.closed) consumer = subscriber;
      return () => {
        consumer = undefined;
        upstream.unsubscribe();
      };
    }),
    cancel: () => {
      held = undefined;
      upstream.unsubscribe();
    },
  };
}
