import { ShutdownError, isShutdownError } from '../../src/core/errors';
import { createGracefulShutdown } from '../../src/node/createGracefulShutdown';
import { promptBound } from '../helpers/promptBound';

const later = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));

describe('createGracefulShutdown', () => {
  it('lets responses finishing within the grace end by themselves: the signal is aborted only afterwards', async () => {
    const shutdown = createGracefulShutdown();
    void shutdown.track(later(30, 'done'));
    expect(shutdown.isDraining).toBe(false);
    const started = Date.now();
    const drained = shutdown.drain(5_000);
    expect(shutdown.isDraining).toBe(true);
    expect(shutdown.drain(5_000)).toBe(drained); // once
    await drained;
    expect(Date.now() - started).toBeLessThan(promptBound(2_000)); // did not wait out the grace
    expect(isShutdownError(shutdown.signal.reason)).toBe(true);
  });

  it('aborts with the given reason once the grace is over, then waits for the responses to end (at most 1 s)', async () => {
    const shutdown = createGracefulShutdown();
    const reasons: unknown[] = [];
    void shutdown.track(
      new Promise<void>((resolve) =>
        shutdown.signal.addEventListener('abort', () => {
          reasons.push(shutdown.signal.reason);
          setTimeout(resolve, 20);
        }),
      ),
    );
    void shutdown.track(new Promise<void>(() => undefined)); // a response that never ends
    const reason = new ShutdownError('bye');
    const started = Date.now();
    await shutdown.drain(100, reason);
    const took = Date.now() - started;
    expect(reasons).toEqual([reason]);
    expect(took).toBeGreaterThanOrEqual(90);
    expect(took).toBeLessThan(promptBound(3_000)); // 100 ms grace + at most 1 s for the stuck one, with a generous margin
  });

  it('merges an outer signal, and forgets responses that failed', async () => {
    const outer = new AbortController();
    const shutdown = createGracefulShutdown(outer.signal);
    await expect(shutdown.track(Promise.reject(new Error('x')))).rejects.toThrow('x');
    outer.abort(new Error('outer'));
    expect(shutdown.signal.aborted).toBe(true);
    await shutdown.drain(10_000); // nothing in flight: no wait
  });
});
