/** The budget periods a moment falls in (UTC): see {@link budgetPeriods}. */
export interface BudgetPeriods {
  /** The day: whole days since 1970-01-01 (UTC). */
  readonly day: number;
  /** The month: `year × 12 + month index` (UTC). */
  readonly month: number;
  /** When the day ends, in ms since the epoch. */
  readonly dayEnd: number;
  /** When the month ends, in ms since the epoch. */
  readonly monthEnd: number;
}

const DAY_MS = 86_400_000;

/**
 * The calendar periods of the token budgets (`tokensPerDay`, `tokensPerMonth`): the UTC day and month a moment falls
 * in, and when each ends (the budget is whole again). The Redis store computes the same in Lua from Redis's clock
 * (`RATE_LIMIT_SCRIPTS`).
 *
 * @param now - The moment, in ms since the epoch.
 * @returns Its day and month, and their ends.
 */
export function budgetPeriods(now: number): BudgetPeriods {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = Math.floor(now / DAY_MS);
  return { day, month: year * 12 + month, dayEnd: (day + 1) * DAY_MS, monthEnd: Date.UTC(year, month + 1, 1) };
}
