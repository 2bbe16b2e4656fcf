import { Observable, map, take, tap, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError } from '../../src/core/errors';
import { withHeartbeat } from '../../src/wire/withHeartbeat';

describe('withHeartbeat', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('beats after each interval of silence, including before the first value, restarted by every value', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('------a-------------b--|');
      const subs = '       ^----------------------!';
      const expected = '   ---p--a--p--p--p--p-b--|';
      expectObservable(source.pipe(withHeartbeat(3, 'p', scheduler))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('does not beat while values come more often than the interval', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-c-d-|').pipe(withHeartbeat(3, 'p', scheduler))).toBe('-a-b-c-d-|');
    });
  });

  it('passes an error through and stops beating (error before and after values)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('----#').pipe(withHeartbeat(3, 'p', scheduler))).toBe('---p#');
      expectObservable(cold('-a------#').pipe(withHeartbeat(3, 'p', scheduler))).toBe('-a--p--p#');
    });
  });

  it('stops beating when unsubscribed', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-----------------|');
      expectObservable(source.pipe(withHeartbeat(2, 'p', scheduler)), '^------!').toBe('--p-p-p');
      expectSubscriptions(source.subscriptions).toBe('^------!');
    });
  });

  it('does not break unsubscription chains', () => {
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('---a---b---c---|');
      const subs = '      ^------!';
      const result = source.pipe(
        map((x) => x),
        withHeartbeat(100, 'p', scheduler),
        map((x) => x),
      );
      expectObservable(result, subs).toBe('---a---');
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('stops listening to a synchronous firehose when unsubscribed', () => {
    let sent = 0;
    const firehose = new Observable<number>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 1000; i++) {
        sent += 1;
        subscriber.next(i);
      }
    });
    const got: number[] = [];
    firehose.pipe(withHeartbeat(1000, -1), take(3)).subscribe((x) => got.push(x));
    expect(got).toEqual([0, 1, 2]);
    expect(sent).toBe(3);
  });

  it('releases its timer on error', () => {
    scheduler.run(({ expectObservable }) => {
      let beats = 0;
      const result = throwError(() => new Error('x')).pipe(
        withHeartbeat(1, 'p', scheduler),
        tap(() => (beats += 1)),
      );
      expectObservable(result).toBe('#', undefined, new Error('x'));
      scheduler.flush();
      expect(beats).toBe(0);
    });
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects intervalMs %p', (ms) => {
    expect(() => withHeartbeat(ms, 'p')).toThrow(ConfigError);
  });
});
