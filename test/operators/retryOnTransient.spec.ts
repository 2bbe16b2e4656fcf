import { getEventListeners } from 'node:events';
import { defer, Observable, of, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  AbortedError,
  ConfigError,
  NetworkError,
  RequestError,
  StreamProtocolError,
  TimeoutError,
  ToolCallError,
  UpstreamHttpError,
  UpstreamStreamError,
} from '../../src/core/errors';
import { DEFAULT_RETRY_POLICY } from '../../src/core/retryPolicy';
import { retryOnTransient, type RetryOnTransientConfig } from '../../src/operators/retryOnTransient';

type Cold = Observable<string>;

describe('retryOnTransient', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  // random() = 0.5 → the backoff before retry n is 0.5 * min(8000, 500 * 2^(n-1)): 250, 500, 1000, …
  const half = (extra: RetryOnTransientConfig = {}): RetryOnTransientConfig => ({
    scheduler,
    random: () => 0.5,
    ...extra,
  });

  /** Subscribes `attempts[i]` on the i-th subscription (the last one repeats). */
  const attemptsOf = (attempts: Cold[]): { source: Observable<string>; count: () => number } => {
    let n = 0;
    return { source: defer(() => attempts[Math.min(n++, attempts.length - 1)]!), count: () => n };
  };

  it('retries a NetworkError with jittered exponential backoff, then mirrors the successful attempt', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const err = new NetworkError('reset');
      const first = cold('-#', undefined, err);
      const second = cold('-#', undefined, err);
      const third = cold('-a-b|');
      const { source } = attemptsOf([first, second, third]);
      // t=1 error, wait 250 → t=251 subscribe, t=252 error, wait 500 → t=752 subscribe
      expectObservable(source.pipe(retryOnTransient(half()))).toBe('753ms a 1ms b |');
      expectSubscriptions(first.subscriptions).toBe('^!');
      expectSubscriptions(second.subscriptions).toBe('251ms ^!');
      expectSubscriptions(third.subscriptions).toBe('752ms ^---!');
    });
  });

  it('gives up after `count` retries (default 2) with the last error', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const err = new UpstreamHttpError(503, 'busy');
      const source = cold('-#', undefined, err);
      expectObservable(source.pipe(retryOnTransient(half()))).toBe('753ms #', undefined, err);
      expectSubscriptions(source.subscriptions).toBe(['^!', '251ms ^!', '752ms ^!']);
    });
  });

  it('the server hint wins: Retry-After 3 s on a 429 waits exactly 3 s', () => {
    let attempts!: { source: Observable<string>; count: () => number };
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const err = new UpstreamHttpError(429, 'slow down', { retryAfterMs: 3000 });
      const second = cold('-a|');
      attempts = attemptsOf([cold('-#', undefined, err), second]);
      expectObservable(attempts.source.pipe(retryOnTransient(half()))).toBe('3002ms a|');
      expectSubscriptions(second.subscriptions).toBe('3001ms ^-!');
    });
    expect(attempts.count()).toBe(2);
  });

  it("Retry-After 0 never goes below the policy's minimum backoff (minDelayMs, 200 ms): no burst of retries", () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const err = new UpstreamHttpError(429, 'slow down', { retryAfterMs: 0 });
      const second = cold('-a|');
      const { source } = attemptsOf([cold('-#', undefined, err), second]);
      expectObservable(source.pipe(retryOnTransient(half()))).toBe('202ms a|');
      expectSubscriptions(second.subscriptions).toBe('201ms ^-!');
    });
  });

  it('minDelayMs is policy data: 0 lets a Retry-After 0 retry at once', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const err = new UpstreamHttpError(429, 'slow down', { retryAfterMs: 0 });
      const { source } = attemptsOf([cold('-#', undefined, err), cold('-a|')]);
      expectObservable(source.pipe(retryOnTransient(half({ minDelayMs: 0 })))).toBe('--a|'); // the floor is policy data
    });
  });

  it('shouldRetry can refuse a retry the policy allows (a budget): the error surfaces, no wait, no attempt', () => {
    const asked: unknown[] = [];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const err = new UpstreamHttpError(429, 'slow down', { retryAfterMs: 3000 });
      const source = cold('-#', undefined, err);
      const result = source.pipe(retryOnTransient(half({ shouldRetry: (event) => (asked.push(event), event.delayMs < 1000) })));
      expectObservable(result).toBe('-#', undefined, err);
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
    expect(asked).toEqual([{ attempt: 1, delayMs: 3000, error: expect.any(UpstreamHttpError) }]);
  });

  it('a hint above maxRetryAfterMs is not obeyed and not retried: the error surfaces at once', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const err = new UpstreamHttpError(429, 'come back tomorrow', { retryAfterMs: 61_000 });
      const source = cold('-#', undefined, err);
      expectObservable(source.pipe(retryOnTransient(half()))).toBe('-#', undefined, err);
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
  });

  it('the backoff is capped at maxDelayMs', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const err = new NetworkError('reset');
      const source = cold('#', undefined, err);
      // random ≈ 1: 1000, 2000, 2000 (capped), 2000
      const result = source.pipe(
        retryOnTransient({ scheduler, random: () => 0.9999999, count: 4, baseDelayMs: 1000, maxDelayMs: 2000 }),
      );
      // floor(0.9999999 * ceiling): waits of 999, 1999, 1999 (capped), 1999 ms
      expectObservable(result).toBe('6996ms #', undefined, err);
      expectSubscriptions(source.subscriptions).toBe([
        '(^!)',
        '999ms (^!)',
        '2998ms (^!)',
        '4997ms (^!)',
        '6996ms (^!)',
      ]);
    });
  });

  it('never retries once a value went downstream: the error surfaces, nothing is duplicated', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const err = new NetworkError('reset after the first chunk');
      const source = cold('-a-#', undefined, err);
      expectObservable(source.pipe(retryOnTransient(half()))).toBe('-a-#', undefined, err);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it.each([
    ['400', new UpstreamHttpError(400, 'bad')],
    ['401', new UpstreamHttpError(401, 'bad key')],
    ['402', new UpstreamHttpError(402, 'no balance')],
    ['403', new UpstreamHttpError(403, 'denied')],
    ['404', new UpstreamHttpError(404, 'no model')],
    ['422', new UpstreamHttpError(422, 'bad params')],
    ['422 with an overload type', new UpstreamHttpError(422, 'x', { upstreamType: 'engine_overloaded_error' })],
    ['AbortedError', new AbortedError()],
    ['StreamProtocolError', new StreamProtocolError('malformed_json', 'bad')],
    ['ToolCallError', new ToolCallError('f', 'bad args')],
    ['RequestError', new RequestError('invalid_request', 'bad')],
    ['TimeoutError first_chunk', new TimeoutError('first_chunk', 1)],
    ['TimeoutError idle', new TimeoutError('idle', 1)],
    ['TimeoutError headers (the request was sent; a queueing provider may hold it)', new TimeoutError('headers', 1)],
    ['ConfigError (undici refused to send, or the pool is closed)', new ConfigError('invalid authorization header')],
    [
      'a 429 with Moonshot quota used up',
      new UpstreamHttpError(429, 'q', { upstreamType: 'exceeded_current_quota_error' }),
    ],
    [
      'a 403 with Moonshot quota used up',
      new UpstreamHttpError(403, 'q', { upstreamType: 'exceeded_current_quota_error' }),
    ],
    [
      'a 429 insufficient_quota (OpenAI-style, as code)',
      new UpstreamHttpError(429, 'q', { upstreamType: 'insufficient_quota', upstreamCode: 'insufficient_quota' }),
    ],
    ['an in-band quota error', new UpstreamStreamError('q', { upstreamCode: 'insufficient_quota' })],
    ['a foreign error', new Error('boom')],
  ])('never retries %s', (_name, err) => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, err);
      expectObservable(source.pipe(retryOnTransient(half()))).toBe('-#', undefined, err);
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
  });

  it.each([
    ['408', new UpstreamHttpError(408, 'x')],
    ['409', new UpstreamHttpError(409, 'x')],
    ['500', new UpstreamHttpError(500, 'x')],
    ['502', new UpstreamHttpError(502, 'x')],
    ['503 (DeepSeek overloaded)', new UpstreamHttpError(503, 'x')],
    ['504', new UpstreamHttpError(504, 'x')],
    [
      'an overload type on another status',
      new UpstreamHttpError(529, 'x', { upstreamType: 'engine_overloaded_error' }),
    ],
    ['an in-band overload error', new UpstreamStreamError('x', { upstreamType: 'engine_overloaded_error' })],
    ['a connect timeout', new TimeoutError('connect', 1)],
  ])('retries %s', (_name, err) => {
    scheduler.run(({ cold, expectObservable }) => {
      const { source } = attemptsOf([cold('-#', undefined, err), cold('-a|')]);
      expectObservable(source.pipe(retryOnTransient(half()))).toBe('252ms a|');
    });
  });

  it('retries a headers timeout when the policy lists the phase', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const err = new TimeoutError('headers', 1);
      const { source } = attemptsOf([cold('-#', undefined, err), cold('-a|')]);
      const result = source.pipe(retryOnTransient(half({ timeoutPhases: ['connect', 'headers'] })));
      expectObservable(result).toBe('252ms a|');
    });
  });

  it('retries a quota error when the policy empties neverUpstreamTypes', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const err = new UpstreamHttpError(429, 'q', { upstreamType: 'exceeded_current_quota_error' });
      const { source } = attemptsOf([cold('-#', undefined, err), cold('-a|')]);
      expectObservable(source.pipe(retryOnTransient(half({ neverUpstreamTypes: [] })))).toBe('252ms a|');
    });
  });

  it('an abort of `signal` during a Retry-After wait ends the result at once with AbortedError, no further attempt', () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, new UpstreamHttpError(429, 'slow down', { retryAfterMs: 5000 }));
      scheduler.schedule(() => controller.abort(reason), 100);
      const result = source.pipe(retryOnTransient(half({ signal: controller.signal })));
      expectObservable(result).toBe(
        '100ms #',
        undefined,
        new AbortedError('the request was aborted', { cause: reason }),
      );
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a signal already aborted when a transient failure arrives: AbortedError at once, no wait', () => {
    const controller = new AbortController();
    controller.abort();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, new NetworkError('reset'));
      const result = source.pipe(retryOnTransient(half({ signal: controller.signal })));
      expectObservable(result).toBe(
        '-#',
        undefined,
        new AbortedError('the request was aborted', { cause: controller.signal.reason }),
      );
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
  });

  it('a signal that never aborts leaves the waits alone and its listener is removed after each one', () => {
    const controller = new AbortController();
    scheduler.run(({ cold, expectObservable }) => {
      const err = new NetworkError('reset');
      const { source } = attemptsOf([cold('-#', undefined, err), cold('-#', undefined, err), cold('-a|')]);
      expectObservable(source.pipe(retryOnTransient(half({ signal: controller.signal })))).toBe('753ms a|');
    });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('unsubscribing during a backoff wait sends no further attempt', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, new NetworkError('reset'));
      expectObservable(source.pipe(retryOnTransient(half())), '^-- 100ms !').toBe('');
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
  });

  it('passes values, completion and subscription lifetimes through', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c|');
      expectObservable(source.pipe(retryOnTransient(half()))).toBe('-a-b-c|');
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('does not break unsubscription chains', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-d-');
      const result = new Observable<string>((subscriber) =>
        source.pipe(retryOnTransient(half())).subscribe(subscriber),
      );
      expectObservable(result, '^--!').toBe('-a-');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('stops listening to a synchronous firehose when unsubscribed', () => {
    let emitted = 0;
    const firehose = new Observable<number>((subscriber) => {
      for (let i = 0; !subscriber.closed; i++) {
        emitted += 1;
        subscriber.next(i);
      }
    });
    const seen: number[] = [];
    firehose.pipe(retryOnTransient(), take(3)).subscribe((v) => seen.push(v));
    expect(seen).toEqual([0, 1, 2]);
    expect(emitted).toBe(3);
  });

  it('retry: 0 (or a count of 0) mirrors the source', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const err = new NetworkError('x');
      expectObservable(cold('-#', undefined, err).pipe(retryOnTransient(0))).toBe('-#', undefined, err);
    });
  });

  it('calls onRetry with the attempt, the wait and the error', () => {
    const events: unknown[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const err = new UpstreamHttpError(429, 'x', { retryAfterMs: 300 });
      const { source } = attemptsOf([cold('#', undefined, err), cold('a|')]);
      expectObservable(source.pipe(retryOnTransient(half({ onRetry: (e) => events.push(e) })))).toBe('300ms a|');
    });
    expect(events).toEqual([{ attempt: 1, delayMs: 300, error: expect.any(UpstreamHttpError) }]);
  });

  it('a wrong minDelayMs (NaN, negative, Infinity, a string from a config file) is a ConfigError naming it, not waits of NaN', () => {
    for (const minDelayMs of [Number.NaN, -1, Infinity, '200' as unknown as number]) {
      expect(() => retryOnTransient({ minDelayMs })).toThrow(ConfigError);
      expect(() => retryOnTransient({ minDelayMs })).toThrow(/`minDelayMs` must be a finite number of ms ≥ 0.*omit it for 200/);
    }
    expect(() => retryOnTransient({ minDelayMs: 0 })).not.toThrow();
  });

  it('a wrong count is a ConfigError that says how to fix it', () => {
    expect(() => retryOnTransient({ count: -1 })).toThrow(ConfigError);
    expect(() => retryOnTransient(1.5)).toThrow(/non-negative integer/);
  });

  it('the default policy is documented data', () => {
    expect(DEFAULT_RETRY_POLICY).toMatchObject({
      count: 2,
      baseDelayMs: 500,
      maxDelayMs: 8000,
      minDelayMs: 200,
      maxRetryAfterMs: 60_000,
    });
    expect(DEFAULT_RETRY_POLICY.statuses).toEqual([408, 409, 429, 500, 502, 503, 504]);
    expect(DEFAULT_RETRY_POLICY.neverUpstreamTypes).toEqual(['exceeded_current_quota_error', 'insufficient_quota']);
    expect(DEFAULT_RETRY_POLICY.timeoutPhases).toEqual(['connect']);
    expect(Object.isFrozen(DEFAULT_RETRY_POLICY)).toBe(true);
    expect(of(1).pipe(retryOnTransient())).toBeInstanceOf(Observable);
  });
});
