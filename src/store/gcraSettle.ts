/**
 * Settles a weighted GCRA charge (see `gcra`): a request reserved some units at admission and used `delta` more (or,
 * negative, fewer). More moves the theoretical arrival time on by `delta` intervals from now at the earliest (what was
 * used past the estimate is owed); fewer moves it back, never before now (a refund cannot bank quota for later). The
 * Redis store runs the same arithmetic in Lua (`RATE_LIMIT_SCRIPTS.settle`).
 *
 * @param tat - The stored theoretical arrival time in ms, or `undefined` (none, or expired).
 * @param now - The clock, in ms.
 * @param limit - Units per period.
 * @param periodMs - The period, in ms.
 * @param delta - Used minus reserved, in units.
 * @returns The theoretical arrival time to store (`now` or before: nothing to store).
 */
export function gcraSettle(tat: number | undefined, now: number, limit: number, periodMs: number, delta: number): number {
  const interval = periodMs / limit;
  const stored = tat ?? now;
  return delta >= 0 ? Math.max(stored, now) + delta * interval : Math.max(now, stored + delta * interval);
}
