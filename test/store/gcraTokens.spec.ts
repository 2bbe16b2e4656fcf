/**
 * gcraTokens and gcraSettle: the weighted GCRA of the token limits (the memory store runs them, the Redis store's Lua
 * script the same arithmetic), as a table and as properties: the tokens admitted in any 60 s window stay within the
 * limit plus one request's maximum, reservations settled or not.
 */
import fc from 'fast-check';
import { gcraSettle } from '../../src/store/gcraSettle';
import { gcraTokens } from '../../src/store/gcraTokens';

const MINUTE = 60_000;

describe('gcraTokens', () => {
  it.each([
    // [limit, arrivals [time, cost], admitted?, remaining, retryAfterMs]
    [6000, [[0, 1000], [0, 10], [10_000, 10]], [true, false, true], [5000, 5000, 5990], [0, 10_000, 0]],
    [6000, [[0, 6000], [30_000, 1], [60_000, 1]], [true, false, true], [0, 3000, 5999], [0, 30_000, 0]],
    [6000, [[0, 9000], [60_000, 1], [90_000, 1]], [true, false, true], [0, 3000, 5999], [0, 30_000, 0]], // a request over the limit: admitted alone, then owed
    [60, [[0, 1], [900, 1], [1000, 1]], [true, false, true], [59, 59, 59], [0, 100, 0]],
  ] as const)('limit %d per minute, arrivals %j: admitted %j, remaining %j, retry after %j', (limit, arrivals, admitted, remaining, retry) => {
    let tat: number | undefined;
    const decisions = arrivals.map(([now, cost]) => {
      const decision = gcraTokens(tat, now, limit, MINUTE, cost);
      tat = decision.tat;
      return decision;
    });
    expect(decisions.map((d) => d.allowed)).toEqual(admitted);
    expect(decisions.map((d) => d.remaining)).toEqual(remaining);
    expect(decisions.map((d) => d.retryAfterMs)).toEqual(retry);
  });

  it('settles: more used than reserved is owed from now on, fewer is refunded but never before now', () => {
    expect(gcraSettle(10_000, 0, 6000, MINUTE, 500)).toBe(15_000); // 500 more: 5 s more
    expect(gcraSettle(10_000, 0, 6000, MINUTE, -500)).toBe(5000); // 500 fewer: 5 s back
    expect(gcraSettle(10_000, 0, 6000, MINUTE, -5000)).toBe(0); // not before now: no quota banked
    expect(gcraSettle(undefined, 20_000, 6000, MINUTE, 100)).toBe(21_000); // owed from now
    expect(gcraSettle(5000, 20_000, 6000, MINUTE, -100)).toBe(20_000);
  });

  // Requests arriving at random times with random reservations (≤ max), each used a random amount (≤ max) and
  // settled at a random later time; every admission and settlement in time order.
  const scenario = fc
    .record({
      limit: fc.integer({ min: 500, max: 5000 }),
      max: fc.integer({ min: 50, max: 800 }),
      requests: fc.array(fc.record({ at: fc.integer({ min: 0, max: 2 * MINUTE }), reserve: fc.double({ min: 0.02, max: 1, noNaN: true }), use: fc.double({ min: 0, max: 1, noNaN: true }), takes: fc.integer({ min: 0, max: 20_000 }) }), { minLength: 50, maxLength: 400, size: "max" }),
    })
    .map(({ limit, max, requests }) => ({
      limit,
      max,
      requests: requests.map((r) => ({ at: r.at, reserve: Math.max(1, Math.round(r.reserve * max)), use: Math.round(r.use * max), takes: r.takes })),
    }));

  it('admits at most limit + one request in any window of a minute, settled or not (property)', () => {
    fc.assert(
      fc.property(scenario, ({ limit, max, requests }) => {
        type Step = { at: number; kind: 'admit' | 'settle'; index: number };
        const steps: Step[] = requests.map((r, index) => ({ at: r.at, kind: 'admit' as const, index })).sort((a, b) => a.at - b.at || a.index - b.index);
        const admittedAt = new Map<number, number>();
        let tat: number | undefined;
        const queue = [...steps];
        const settled: Array<{ at: number; tokens: number }> = [];
        while (queue.length > 0) {
          queue.sort((a, b) => a.at - b.at || (a.kind === 'settle' ? -1 : 1));
          const step = queue.shift() as Step;
          const request = requests[step.index] as { reserve: number; use: number; takes: number };
          if (step.kind === 'admit') {
            const decision = gcraTokens(tat, step.at, limit, MINUTE, request.reserve);
            tat = decision.tat;
            if (decision.allowed) {
              admittedAt.set(step.index, step.at);
              queue.push({ at: step.at + request.takes, kind: 'settle', index: step.index });
            }
          } else {
            tat = gcraSettle(tat, step.at, limit, MINUTE, request.use - request.reserve);
            settled.push({ at: step.at, tokens: request.use });
          }
        }
        // the tokens used by the requests admitted in any window [a, a + 1 min)
        const admitted = [...admittedAt].map(([index, at]) => ({ at, tokens: (requests[index] as { use: number }).use })).sort((a, b) => a.at - b.at);
        for (const { at: start } of admitted) {
          const sum = admitted.filter(({ at }) => at >= start && at < start + MINUTE).reduce((total, { tokens }) => total + tokens, 0);
          if (sum > limit + max) return false;
        }
        return true;
      }),
    );
  });
});
