/** What one call may still spend upstream: attempts, and time (see {@link createRouteBudget}). */
export interface RouteBudget {
  /** Counts one upstream attempt (a request sent). */
  spend(): void;
  /**
   * Whether another attempt may start after a wait of `delayMs`: an attempt is left beyond the `reserve` kept for
   * targets not tried yet, and the wait ends before both deadlines.
   */
  allows(delayMs?: number, reserve?: number): boolean;
  /** The answer was cut after text was delivered: the cut's deadline (`cutDeadlineMs`) starts again from now. */
  cut(): void;
}

/** The limits of a {@link RouteBudget}; each omitted or `0` (or `Infinity`) one is no limit. */
export interface RouteBudgetConfig {
  /** The most upstream requests of the call, its first one, retries, fail-overs, continuations and restarts included. */
  maxAttempts?: number;
  /** The total deadline, in ms from the call's start: no attempt starts, nor is waited for, past it. */
  deadlineMs?: number;
  /** The deadline of each stretch of recovery, in ms from the call's start and again from each cut. */
  cutDeadlineMs?: number;
}

/**
 * The budget of one call: at most `maxAttempts` upstream requests in all (the first, retries, fail-overs,
 * continuations and restarts), and no attempt started — nor a wait for one — past `deadlineMs` from the call's start
 * nor past `cutDeadlineMs` from its start or its latest cut. Spent, the failure in hand surfaces.
 *
 * @param config - The limits (none by default).
 * @param now - The clock (default `Date.now`).
 * @returns The budget.
 */
export function createRouteBudget(config: RouteBudgetConfig, now: () => number = Date.now): RouteBudget {
  const maxAttempts = config.maxAttempts ?? Infinity;
  const from = (ms: number | undefined): number => (ms !== undefined && ms > 0 ? now() + ms : Infinity);
  const until = from(config.deadlineMs);
  let cutUntil = from(config.cutDeadlineMs);
  let spent = 0;
  return {
    spend: () => void spent++,
    allows: (delayMs = 0, reserve = 0) => maxAttempts - spent > reserve && now() + delayMs < Math.min(until, cutUntil),
    cut: () => {
      cutUntil = from(config.cutDeadlineMs);
    },
  };
}
