import { TestScheduler } from 'rxjs/testing';
import { ConfigError, NetworkError, TimeoutError, UpstreamHttpError } from '../../src/core/errors';
import { failover, type FailoverAttempt } from '../../src/operators/failover';

describe('failover', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const e503 = new UpstreamHttpError(503, 'busy');
  const e400 = new UpstreamHttpError(400, 'bad request');

  it('hands a failure before the first value to the next target and mirrors the one that delivers', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('--#', undefined, e503);
      const b = cold('  --x--y--|');
      const attempts: FailoverAttempt[] = [];
      const result = failover(
        [
          { name: 'a', source: () => a },
          { name: 'b', source: () => b },
        ],
        { onAttempt: (attempt) => attempts.push(attempt) },
      );
      expectObservable(result).toBe('----x--y--|');
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('--^-------!');
      scheduler.flush();
      expect(attempts.map((x) => `${x.target}:${x.outcome}`)).toEqual(['a:failed', 'b:ok']);
    });
  });

  it('does not hand over after a value (no text twice): the error passes through', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const cut = new NetworkError('reset', { midResponse: true });
      const a = cold('--x--#', undefined, cut);
      const b = cold('--y--|');
      expectObservable(failover([{ name: 'a', source: () => a }, { name: 'b', source: () => b }])).toBe('--x--#', undefined, cut);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it("stops on the request's own fault (400) by default, and surfaces it", () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-#', undefined, e400);
      const b = cold('-y|');
      expectObservable(failover([{ name: 'a', source: () => a }, { name: 'b', source: () => b }])).toBe('-#', undefined, e400);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('goes where `next` says (skipping targets in between), skips what `skip` says, and surfaces the last error when none is left', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const silent = new TimeoutError('first_chunk', 3);
      const a = cold('---#', undefined, silent);
      const b = cold('-y|');
      const c = cold('   -#', undefined, e503);
      const d = cold('z|');
      const attempts: string[] = [];
      const result = failover(
        [
          { name: 'a', source: () => a },
          { name: 'b', source: () => b },
          { name: 'c', source: () => c },
          { name: 'd', source: () => d },
        ],
        {
          next: (_error, index) => (index === 0 ? 2 : index + 1),
          skip: (index) => index === 3,
          onAttempt: (x) => attempts.push(`${x.target}:${x.outcome}`),
        },
      );
      expectObservable(result).toBe('----#', undefined, e503);
      expectSubscriptions(b.subscriptions).toBe([]);
      expectSubscriptions(d.subscriptions).toBe([]);
      scheduler.flush();
      expect(attempts).toEqual(['a:failed', 'c:failed', 'd:skipped']);
    });
  });

  it("applies each target's own retry budget before handing over (virtual time)", () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-#', undefined, e503);
      const b = cold('-y|');
      const result = failover([
        { name: 'a', source: () => a, retry: { count: 1, scheduler, random: () => 0.5, baseDelayMs: 4, minDelayMs: 0 } },
        { name: 'b', source: () => b },
      ]);
      // a: fails at 1, waits 0.5 * 4 = 2, fails again at 4; b then answers at 5.
      expectObservable(result).toBe('-----y|');
      expectSubscriptions(a.subscriptions).toBe(['^!', '---^!']);
    });
  });

  it('ends the current attempt when the result is unsubscribed (here: during the second target)', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('--#', undefined, e503);
      const b = cold('  --x--y--|');
      expectObservable(failover([{ name: 'a', source: () => a }, { name: 'b', source: () => b }]), '^-----!').toBe('----x-');
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('--^---!');
    });
  });

  it('errors with what `next`, `skip` or `onAttempt` throws after a failure (not lost as an unhandled error)', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('--#', undefined, e503);
      const b = cold('  --x|');
      const bug = new Error('bug in next');
      const targets = [{ name: 'a', source: () => a }, { name: 'b', source: () => b }];
      expectObservable(failover(targets, { next: () => { throw bug; } })).toBe('--#', undefined, bug);
      expectObservable(failover(targets, { skip: (index) => { if (index === 1) throw bug; return false; } })).toBe('--#', undefined, bug);
      expectObservable(failover(targets, { onAttempt: () => { throw bug; } })).toBe('--#', undefined, bug);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('errors with noTarget() when every target is skipped, and refuses an empty list', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const busy = new Error('all open');
      const a = cold('x|');
      expectObservable(failover([{ name: 'a', source: () => a }], { skip: () => true, noTarget: () => busy })).toBe('#', undefined, busy);
    });
    expect(() => failover([])).toThrow(ConfigError);
  });
});
