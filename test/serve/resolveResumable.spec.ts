/**
 * resolveResumable: the serving core's `resumable` option, checked once when the core is made — never a per-request
 * failure, and never a long wait read as "at once".
 */
import { ConfigError } from '../../src/core/errors';
import { resolveResumable } from '../../src/serve/resolveResumable';

describe('resolveResumable', () => {
  it('refuses an abandonAfterMs that is not a whole number at once (the stream log would refuse it on every request)', () => {
    expect(() => resolveResumable({ abandonAfterMs: 1500.5 })).toThrow(ConfigError);
    expect(() => resolveResumable({ abandonAfterMs: 1500.5 })).toThrow(/resumable\.abandonAfterMs/);
    expect(() => resolveResumable({ abandonAfterMs: -1 })).toThrow(/resumable\.abandonAfterMs/);
  });

  it('reads an abandonAfterMs past a timer’s range as never, as Infinity — not as 0 (abandon at once)', () => {
    expect(resolveResumable({ abandonAfterMs: 2 ** 31 })?.abandonAfterMs).toBeUndefined();
    expect(resolveResumable({ abandonAfterMs: Number.POSITIVE_INFINITY })?.abandonAfterMs).toBeUndefined();
    expect(resolveResumable({ abandonAfterMs: 0 })?.abandonAfterMs).toBe(0);
    expect(resolveResumable({})?.abandonAfterMs).toBe(60_000);
  });

  it('refuses a retention over 24 h by the value given (Infinity and past a timer’s range too), not as 0', () => {
    for (const retentionMs of [86_400_001, 2 ** 31, Number.POSITIVE_INFINITY]) {
      expect(() => resolveResumable({ retentionMs })).toThrow(/resumable\.retentionMs must be at most 86400000/);
    }
  });
});
