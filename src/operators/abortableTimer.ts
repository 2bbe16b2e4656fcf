import { Observable, timer, type SchedulerLike } from 'rxjs';
import { AbortedError } from '../core/errors.js';

/**
 * `timer(delayMs, scheduler)`, unless `signal` aborts first: then it errors at once with an `AbortedError` (the
 * signal's `reason` as `cause`), also when the signal is already aborted at subscription. The wait runs on
 * `scheduler` (virtual time under a `TestScheduler`); the abort listener is removed when the timer ends either way.
 */
export function abortableTimer(delayMs: number, scheduler: SchedulerLike, signal?: AbortSignal): Observable<0> {
  if (signal === undefined) return timer(delayMs, scheduler);
  return new Observable<0>((subscriber) => {
    const onAbort = (): void => subscriber.error(new AbortedError('the request was aborted', { cause: signal.reason }));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const wait = timer(delayMs, scheduler).subscribe({
      next: (value) => subscriber.next(value),
      complete: () => subscriber.complete(),
    });
    return () => {
      signal.removeEventListener('abort', onAbort);
      wait.unsubscribe();
    };
  });
}
