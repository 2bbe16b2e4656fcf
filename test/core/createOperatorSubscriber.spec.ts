import { Observable, take, type OperatorFunction } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { createOperatorSubscriber } from '../../src/core/createOperatorSubscriber';

/** An operator built on the subscriber: each value goes through `onNext`, which may emit to the destination. */
const through =
  <T, R>(
    onNext: (value: T, emit: (value: R) => void) => void,
    onComplete?: (emit: (value: R) => void) => void,
    onError?: (error: unknown, emit: (value: R) => void, complete: () => void) => void,
  ): OperatorFunction<T, R> =>
  (source) =>
    new Observable<R>((subscriber) => {
      const emit = (value: R): void => subscriber.next(value);
      source.subscribe(
        createOperatorSubscriber<T>(
          subscriber,
          (value) => onNext(value, emit),
          onComplete === undefined ? undefined : () => onComplete(emit),
          onError === undefined ? undefined : (error) => onError(error, emit, () => subscriber.complete()),
        ),
      );
    });

const upper = through<string, string>((value, emit) => emit(value.toUpperCase()));

describe('createOperatorSubscriber', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('calls onNext with each value and forwards completion', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--b--|');
      expectObservable(source.pipe(upper)).toBe('--A--B--|');
      expectSubscriptions(source.subscriptions).toBe('^-------!');
    });
  });

  it('forwards an error of the source when no onError is given', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--#', undefined, new Error('cut'));
      expectObservable(source.pipe(upper)).toBe('--A--#', undefined, new Error('cut'));
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('turns a throw in onNext into the error of the destination, and unsubscribes the source there', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const bad = new Error('bad value');
      const source = cold('--a--b--c--|');
      const result = source.pipe(
        through<string, string>((value, emit) => {
          if (value === 'b') throw bad;
          emit(value);
        }),
      );
      expectObservable(result).toBe('--a--#', undefined, bad);
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('passes an unsubscription of the destination on to the source', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--b--c--|');
      expectObservable(source.pipe(upper), '^---!').toBe('--A--');
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });

  it('lets a synchronous source see `closed` once the destination is done', () => {
    let sent = 0;
    const firehose = new Observable<string>((subscriber) => {
      for (let i = 0; i < 1000 && !subscriber.closed; i++) {
        sent++;
        subscriber.next(`v${i}`);
      }
    });
    const seen: string[] = [];
    firehose.pipe(upper, take(3)).subscribe((value) => seen.push(value));
    expect(seen).toEqual(['V0', 'V1', 'V2']);
    expect(sent).toBe(3);
  });

  it('calls onComplete before forwarding completion (it may emit last values)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const calls: string[] = [];
      const result = cold('--a--b--|').pipe(
        through<string, string>(
          (value, emit) => emit(value),
          (emit) => {
            calls.push('complete');
            emit('z');
          },
        ),
      );
      expectObservable(result).toBe('--a--b--(z|)');
      scheduler.flush();
      expect(calls).toEqual(['complete']);
    });
  });

  it('turns a throw in onComplete into an error instead of the completion', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const late = new Error('late check failed');
      const result = cold('--a--|').pipe(
        through<string, string>(
          (value, emit) => emit(value),
          () => {
            throw late;
          },
        ),
      );
      expectObservable(result).toBe('--a--#', undefined, late);
    });
  });

  it('lets onError replace the forwarding of an error (here: a fallback value, then completion)', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--#', undefined, new Error('cut'));
      const seen: unknown[] = [];
      const result = source.pipe(
        through<string, string>(
          (value, emit) => emit(value),
          undefined,
          (error, emit, complete) => {
            seen.push(error);
            emit('f');
            complete();
          },
        ),
      );
      expectObservable(result).toBe('--a--(f|)');
      expectSubscriptions(source.subscriptions).toBe('^----!');
      scheduler.flush();
      expect(seen).toEqual([new Error('cut')]);
    });
  });

  it('turns a throw in onError into the error of the destination', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const wrapped = new Error('wrapped');
      const result = cold('--a--#', undefined, new Error('cut')).pipe(
        through<string, string>(
          (value, emit) => emit(value),
          undefined,
          () => {
            throw wrapped;
          },
        ),
      );
      expectObservable(result).toBe('--a--#', undefined, wrapped);
    });
  });

  describe('without a destination (the last subscriber of a chain)', () => {
    /** Subscribes a terminal subscriber to `source` and records what its handlers saw, at which frame. */
    const record = (
      source: Observable<string>,
      onNext: (value: string) => void = () => undefined,
      onComplete: () => void = () => undefined,
    ): string[] => {
      const seen: string[] = [];
      source.subscribe(
        createOperatorSubscriber<string>(
          undefined,
          (value) => {
            onNext(value);
            seen.push(`${scheduler.now()}:${value}`);
          },
          () => {
            onComplete();
            seen.push(`${scheduler.now()}:complete`);
          },
          (error) => seen.push(`${scheduler.now()}:error ${(error as Error).message}`),
        ),
      );
      return seen;
    };

    it('calls the handlers: each value, then the completion or the error', () => {
      scheduler.run(({ cold, expectSubscriptions }) => {
        const completing = cold('--a--b--|');
        const failing = cold('--a--#', undefined, new Error('cut'));
        const done = record(completing);
        const failed = record(failing);
        scheduler.flush();
        expect(done).toEqual(['2:a', '5:b', '8:complete']);
        expect(failed).toEqual(['2:a', '5:error cut']);
        expectSubscriptions(completing.subscriptions).toBe('^-------!');
        expectSubscriptions(failing.subscriptions).toBe('^----!');
      });
    });

    it('hands a throw of onNext or onComplete to onError, and unsubscribes the source there', () => {
      scheduler.run(({ cold, expectSubscriptions }) => {
        const source = cold('--a--b--c--|');
        const seen = record(source, (value) => {
          if (value === 'b') throw new Error('bad value');
        });
        const late = cold('--a--|');
        const lateSeen = record(late, undefined, () => {
          throw new Error('late check failed');
        });
        scheduler.flush();
        expect(seen).toEqual(['2:a', '5:error bad value']);
        expectSubscriptions(source.subscriptions).toBe('^----!');
        expect(lateSeen).toEqual(['2:a', '5:error late check failed']);
      });
    });
  });
});
