import { Observable, map, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { NetworkError, UpstreamStreamError } from '../../src/core/errors';
import { toNdjson } from '../../src/wire/toNdjson';

describe('toNdjson', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('writes one JSON line per value and nothing at completion', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-|', { a: { done: false, index: 0 }, b: { done: true, index: 1 } });
      expectObservable(source.pipe(toNdjson())).toBe('-A-B-|', {
        A: '{"done":false,"index":0}\n',
        B: '{"done":true,"index":1}\n',
      });
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('turns an error after some values into the spec error line, then completes', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold(
        '-a-#',
        { a: 1 },
        new UpstreamStreamError('provider overloaded', { upstreamCode: 'overloaded' }),
      );
      expectObservable(source.pipe(toNdjson())).toBe('-A-(E|)', {
        A: '1\n',
        E: '{"error":{"message":"provider overloaded","type":"upstream_error","code":"overloaded"},"done":true}\n',
      });
    });
  });

  it('turns an error before the first value into the error line, redacting secrets, and calls onError with the original', () => {
    const seen: unknown[] = [];
    const error = new UpstreamStreamError('bad key sk-abcdefghijklmnopqrst or gw-secret-1234');
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('--#', undefined, error);
      expectObservable(source.pipe(toNdjson({ secrets: ['gw-secret-1234'], onError: (e) => seen.push(e) }))).toBe(
        '--(E|)',
        {
          E: '{"error":{"message":"bad key [redacted] or [redacted]","type":"upstream_error","code":"upstream_error"},"done":true}\n',
        },
      );
    });
    expect(seen).toEqual([error]);
  });

  it('turns a value without a JSON form into a generic error line and stops the source', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<unknown>('-a-b-c-|', { a: 1, b: undefined, c: 3 });
      expectObservable(source.pipe(toNdjson())).toBe('-A-(E|)', {
        A: '1\n',
        E: '{"error":{"message":"internal server error","type":"server_error","code":"internal_error"},"done":true}\n',
      });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('maps a network error to its fixed public message', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(
        cold('#', undefined, new NetworkError('connect ECONNREFUSED 10.0.0.1:443')).pipe(toNdjson()),
      ).toBe('(E|)', {
        E: '{"error":{"message":"the upstream provider could not be reached","type":"upstream_error","code":"network"},"done":true}\n',
      });
    });
  });

  it('does not break unsubscription chains', () => {
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-b-c-|', { a: 1, b: 2, c: 3 });
      const result = source.pipe(
        map((x) => x),
        toNdjson(),
        map((x) => x),
      );
      expectObservable(result, '^--!').toBe('-A-', { A: '1\n' });
      expectSubscriptions(source.subscriptions).toBe('^--!');
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
    const got: string[] = [];
    firehose.pipe(toNdjson(), take(3)).subscribe((line) => got.push(line));
    expect(got).toEqual(['0\n', '1\n', '2\n']);
    expect(sent).toBe(3);
  });
});
