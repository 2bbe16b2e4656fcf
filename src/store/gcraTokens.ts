import type { GcraDecision } from './gcra.js';

/** The slack of the comparisons, in ms (float sums; the Lua script's too). */
const EPSILON_MS = 0.01;

/**
 * One decision of the weighted GCRA of the token limits: `limit` tokens per `periodMs`, evenly refilled (one every
 * `periodMs / limit` ms); a request costs its tokens. Unlike the requests' GCRA (`gcra`, a burst of `limit`), a
 * request is admitted only once the tokens charged before it have been refilled (the theoretical arrival time `tat` is
 * not ahead of now), whatever its own cost — so the tokens admitted in ANY window of `periodMs` stay within `limit`
 * plus one request's tokens (a bucket of `limit` would let `2 × limit` through in the window after an idle one). The
 * Redis store runs the same arithmetic in Lua (`RATE_LIMIT_SCRIPTS`); the settlement moves `tat` by what was used
 * past (or short of) the reservation (`gcraSettle`).
 *
 * 1. `tat` in the past counts as now (an idle key: admitted at once).
 * 2. Admitted when `tat` ≤ now: `tat` moves `cost` intervals on. Refused otherwise, with the wait until `tat`; the
 *    state is kept (a refusal costs nothing).
 * 3. `remaining`: the tokens of the period not yet charged (`limit` − what is owed); `resetMs`: until nothing is owed.
 *
 * @param tat - The stored theoretical arrival time in ms, or `undefined` (never seen, or expired).
 * @param now - The clock, in ms.
 * @param limit - Tokens per period (a positive integer).
 * @param periodMs - The period, in ms (positive).
 * @param cost - The request's tokens (its reservation).
 * @returns The decision and the state to store.
 */
export function gcraTokens(tat: number | undefined, now: number, limit: number, periodMs: number, cost: number): GcraDecision {
  const interval = periodMs / limit;
  const from = tat === undefined || tat < now ? now : tat;
  const left = (until: number): number => Math.max(0, Math.floor(limit - (until - now) / interval + 0.01));
  if (from - now > EPSILON_MS) {
    const wait = Math.ceil(from - now);
    return { allowed: false, tat: from, remaining: left(from), resetMs: wait, retryAfterMs: wait };
  }
  const next = from + cost * interval;
  return { allowed: true, tat: next, remaining: left(next), resetMs: Math.ceil(next - now), retryAfterMs: 0 };
}
