import { Subscriber } from 'rxjs';

/**
 * A `Subscriber` of an operator's source that calls its handlers and forwards to the operator's own subscriber: the
 * private helper rxjs's operators use (`createOperatorSubscriber`), so that an operator is one hop per value instead
 * of `tap` + `ignoreElements` (two subscribers and a closure call each).
 *
 * ```text
 * source:       ──a──b──|            ──a──#
 * subscriber:   onNext(a) onNext(b) onComplete()    onNext(a) onError(#) (default: destination.error(#))
 * ```
 *
 * 1. It is added to `destination`: unsubscribing the destination (or its completing) unsubscribes the source, so a
 *    synchronous firehose sees `closed`.
 * 2. A handler that throws errors `destination` with what it threw.
 * 3. Completion is forwarded after `onComplete` (as `tap`'s: a throw errors the destination instead). Errors are
 *    forwarded, unless `onError` is given: it replaces the forwarding.
 * 4. Without a destination (`undefined`: the last subscriber of a chain, e.g. a response writer's), nothing is
 *    forwarded: a throw of `onNext` or `onComplete` goes to `onError` (required then), and the source is left.
 *
 * @param destination - The operator's subscriber (the `new Observable((subscriber) => …)` one), or `undefined`.
 * @param onNext - Called with each value of the source.
 * @param onComplete - Called once when the source completes.
 * @param onError - Called once when the source errors.
 * @returns The subscriber to pass to `source.subscribe(…)`.
 */
export function createOperatorSubscriber<T>(
  destination: Subscriber<unknown>,
  onNext: (value: T) => void,
  onComplete?: () => void,
  onError?: (error: unknown) => void,
): Subscriber<T>;
export function createOperatorSubscriber<T>(
  destination: undefined,
  onNext: (value: T) => void,
  onComplete: () => void,
  onError: (error: unknown) => void,
): Subscriber<T>;
export function createOperatorSubscriber<T>(
  destination: Subscriber<unknown> | undefined,
  onNext: (value: T) => void,
  onComplete?: () => void,
  onError?: (error: unknown) => void,
): Subscriber<T> {
  return new OperatorSubscriber<T>(destination, onNext, onComplete, onError);
}

class OperatorSubscriber<T> extends Subscriber<T> {
  private readonly onNext: (value: T) => void;
  /** Where a throw of `onNext` goes: the destination's `error`, else this subscriber's own (`onError`). */
  private readonly target: Subscriber<unknown> | undefined;

  constructor(
    destination: Subscriber<unknown> | undefined,
    onNext: (value: T) => void,
    onComplete: (() => void) | undefined,
    onError: ((error: unknown) => void) | undefined,
  ) {
    super(destination as Subscriber<T> | undefined); // adds this subscriber to the destination (the unsubscription chain)
    this.onNext = onNext;
    this.target = destination;
    if (onComplete !== undefined) {
      this._complete = (): void => {
        try {
          onComplete();
          destination?.complete();
        } catch (error) {
          if (destination === undefined) onError!(error);
          else destination.error(error);
        } finally {
          this.unsubscribe();
        }
      };
    }
    if (onError !== undefined) {
      this._error = (error: unknown): void => {
        try {
          onError(error);
        } catch (thrown) {
          if (destination === undefined) throw thrown;
          destination.error(thrown);
        } finally {
          this.unsubscribe();
        }
      };
    }
  }

  /**
   * A value: rxjs's `Subscriber.next` (a stopped subscriber ignores it), with the handler called from this class's
   * own method. `Subscriber.prototype.next` is shared by every subscriber of the process, so its `this._next(value)`
   * call sees them all and is never inlined; a call site that always hands values to this class (one operator's
   * `destination.next(value)`) can inline this method and the handler, a few nanoseconds instead of two megamorphic
   * calls per value and per operator.
   */
  override next(value: T): void {
    if (this.isStopped) return super.next(value); // rxjs's handling of a notification after the end
    try {
      this.onNext(value);
    } catch (error) {
      if (this.target !== undefined) this.target.error(error);
      else this.error(error); // onError, then this subscriber stops and leaves the source
    }
  }
}
