import { availableParallelism } from 'node:os';
import { isConfigError } from '../../src/core/errors';
import { resolveWorkerCount } from '../src/resolveWorkerCount';

describe('resolveWorkerCount (CHATFLUX_WORKERS)', () => {
  it('unset or empty: one process; a number: that many; auto: one per core', () => {
    expect(resolveWorkerCount({})).toBe(1);
    expect(resolveWorkerCount({ CHATFLUX_WORKERS: ' ' })).toBe(1);
    expect(resolveWorkerCount({ CHATFLUX_WORKERS: '3' })).toBe(3);
    expect(resolveWorkerCount({ CHATFLUX_WORKERS: 'auto' })).toBe(availableParallelism());
    expect(resolveWorkerCount({ CHATFLUX_WORKERS: 'AUTO' })).toBe(availableParallelism());
  });

  it.each(['0', '-1', '1.5', 'two', '257', '2x'])('%s is a ConfigError naming the variable', (value) => {
    let thrown: unknown;
    try {
      resolveWorkerCount({ CHATFLUX_WORKERS: value });
    } catch (error) {
      thrown = error;
    }
    expect(isConfigError(thrown)).toBe(true);
    expect((thrown as Error).message).toContain('CHATFLUX_WORKERS must be "auto"');
  });
});
