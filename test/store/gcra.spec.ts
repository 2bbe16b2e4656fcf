/**
 * gcra: the rate decision every store makes (the memory store runs it, the Redis store's Lua script the same
 * arithmetic), as a table and as properties over any arrival sequence.
 */
import fc from 'fast-check';
import { gcra } from '../../src/store/gcra';

const MINUTE = 60_000;

/** Runs `gcra` over arrivals at `times`, returning each decision (the state carried from one to the next). */
const run = (times: readonly number[], limit: number, periodMs = MINUTE) => {
  let tat: number | undefined;
  return times.map((now) => {
    const decision = gcra(tat, now, limit, periodMs);
    tat = decision.tat;
    return { now, ...decision };
  });
};

describe('gcra', () => {
  it.each([
    // [limit, arrivals, admitted?, remaining, retryAfterMs]
    [2, [0, 0, 0], [true, true, false], [1, 0, 0], [0, 0, 30_000]],
    [2, [0, 0, 30_000], [true, true, true], [1, 0, 0], [0, 0, 0]],
    [2, [0, 0, 29_999], [true, true, false], [1, 0, 0], [0, 0, 1]],
    [3, [0, 0, 0, 0, 20_000], [true, true, true, false, true], [2, 1, 0, 0, 0], [0, 0, 0, 20_000, 0]],
    [1, [0, 59_999, 60_000, 60_000], [true, false, true, false], [0, 0, 0, 0], [0, 1, 0, 60_000]],
    [60, [0, 0], [true, true], [59, 58], [0, 0]],
  ])('limit %d per minute, arrivals %j: admitted %j, remaining %j, retry after %j', (limit, times, admitted, remaining, retry) => {
    const decisions = run(times, limit);
    expect(decisions.map((d) => d.allowed)).toEqual(admitted);
    expect(decisions.map((d) => d.remaining)).toEqual(remaining);
    expect(decisions.map((d) => d.retryAfterMs)).toEqual(retry);
  });

  it('gives an idle key its whole quota back: reset says when', () => {
    const [first, second] = run([0, 0], 4);
    expect(first?.resetMs).toBe(15_000);
    expect(second?.resetMs).toBe(30_000);
    const [after] = run([0, 0, 30_000].slice(2), 4); // a fresh key at any time: whole
    expect(after?.remaining).toBe(3);
    expect(gcra(30_000, 30_000, 4, MINUTE).remaining).toBe(3); // the stored tat reached: whole again
  });

  it('does not charge a refusal: the state is kept', () => {
    const refused = gcra(MINUTE, 0, 2, MINUTE);
    expect(refused.allowed).toBe(false);
    expect(refused.tat).toBe(MINUTE);
  });

  const arrivals = fc.array(fc.integer({ min: 0, max: 3 * MINUTE }), { minLength: 1, maxLength: 200 }).map((times) => [...times].sort((a, b) => a - b));

  it('admits at most limit + (b - a) / interval in any window [a, b] (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), arrivals, (limit, times) => {
        const interval = MINUTE / limit;
        const admitted = run(times, limit).filter((d) => d.allowed).map((d) => d.now);
        for (let i = 0; i < admitted.length; i++) {
          for (let j = i; j < admitted.length; j++) {
            const span = (admitted[j] as number) - (admitted[i] as number);
            if (j - i + 1 > limit + Math.floor(span / interval + 1e-9)) return false;
          }
        }
        return true;
      }),
    );
  });

  it('admits a refused request exactly at its retry-after, and reports remaining exactly (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), arrivals, (limit, times) => {
        let tat: number | undefined;
        for (const now of times) {
          const decision = gcra(tat, now, limit, MINUTE);
          if (!decision.allowed) {
            expect(decision.retryAfterMs).toBeGreaterThan(0);
            expect(gcra(tat, now + decision.retryAfterMs, limit, MINUTE).allowed).toBe(true);
          } else {
            // exactly `remaining` more fit now, and not one more
            let state = decision.tat;
            for (let k = 0; k < decision.remaining; k++) {
              const more = gcra(state, now, limit, MINUTE);
              expect(more.allowed).toBe(true);
              state = more.tat;
            }
            expect(gcra(state, now, limit, MINUTE).allowed).toBe(false);
          }
          tat = decision.tat;
        }
      }),
    );
  });
});
