import { from, isObservable, Observable, of } from 'rxjs';

/**
 * A tool's (or a hook's) answer as an Observable: a Promise (any thenable) or an Observable as it is, anything else —
 * arrays and strings too — as one value. A synchronous throw of `produce` becomes an error notification.
 */
export function fromToolValue<T>(produce: () => T | PromiseLike<T> | Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    let value: T | PromiseLike<T> | Observable<T>;
    try {
      value = produce();
    } catch (error) {
      subscriber.error(error);
      return undefined;
    }
    const source: Observable<T> = isObservable(value)
      ? (value as Observable<T>)
      : typeof (value as PromiseLike<T> | null)?.then === 'function'
        ? from(value as PromiseLike<T>)
        : of(value as T);
    return source.subscribe(subscriber);
  });
}
