/** The slack of the comparisons, in ms: the sum of `limit` intervals may miss `periodMs` by a rounding (the Lua script's too). */
const EPSILON_MS = 0.01;

/** What one GCRA decision says (see {@link gcra}). */
export interface GcraDecision {
  /** Whether the request is admitted. */
  readonly allowed: boolean;
  /** The theoretical arrival time to keep, in ms (the old one when refused: a refusal costs nothing). */
  readonly tat: number;
  /** The requests that could still be admitted now, after this decision. */
  readonly remaining: number;
  /** How long until the whole quota is back (no request in the period), in ms. */
  readonly resetMs: number;
  /** When refused, how long until one request would be admitted, in ms (0 when admitted). */
  readonly retryAfterMs: number;
}

/**
 * One decision of the Generic Cell Rate Algorithm: `limit` requests per `periodMs`, evenly refilled (one every
 * `periodMs / limit` ms), at most `limit` at once. The state is one number, the theoretical arrival time (`tat`): the
 * moment the quota would be whole again. The Redis store runs the same arithmetic in Lua (`RATE_LIMIT_SCRIPT`), on
 * Redis's clock; the memory store runs this.
 *
 * 1. `tat` in the past counts as now (an idle key has its whole quota).
 * 2. Admitting moves `tat` one interval on; it is refused when the new `tat` would be more than `periodMs` ahead of now,
 *    and then `tat` is kept (a refused request is not charged).
 * 3. `remaining` is how many intervals still fit between the new `tat` and now + `periodMs`.
 *
 * @param tat - The stored theoretical arrival time in ms, or `undefined` for a key never seen (or expired).
 * @param now - The clock, in ms.
 * @param limit - Requests per period (a positive integer).
 * @param periodMs - The period, in ms (positive).
 * @returns The decision and the state to store.
 */
export function gcra(tat: number | undefined, now: number, limit: number, periodMs: number): GcraDecision {
  const interval = periodMs / limit;
  const from = tat === undefined || tat < now ? now : tat;
  const next = from + interval;
  if (next - now > periodMs + EPSILON_MS) {
    // one interval must pass past the point where the next request fits
    const retryAfterMs = Math.ceil(next - periodMs - now);
    return { allowed: false, tat: from, remaining: 0, resetMs: Math.ceil(from - now), retryAfterMs };
  }
  const remaining = Math.floor((periodMs + EPSILON_MS - (next - now)) / interval);
  return { allowed: true, tat: next, remaining, resetMs: Math.ceil(next - now), retryAfterMs: 0 };
}
