/** What one call of a route may still spend upstream: attempts, and time (see {@link createRouteBudget}). */
export interface RouteBudget {
  /** Counts one upstream attempt (a request sent). */
  spend(): void;
  /**
   * Whether another attempt may start after a wait of `delayMs`: an attempt is left beyond the `reserve` kept for
   * targets not tried yet, and the wait ends before the deadline.
   */
  allows(delayMs?: number, reserve?: number): boolean;
  /** The answer was cut after text was delivered: its continuation gets the whole time budget again. */
  restart(): void;
}

/**
 * The budget of one call of a route: at most `maxAttempts` upstream requests in all (retries, fail-overs and
 * continuations), and no attempt started — nor a wait for one — past `deadlineMs` from the call's start or from its
 * latest cut (`0`: no deadline). Spent, the failure in hand surfaces.
 *
 * @param maxAttempts - The most upstream requests of the call.
 * @param deadlineMs - The time budget in ms (`0` or `Infinity`: none).
 * @param now - The clock (default `Date.now`).
 * @returns The budget.
 */
export function createRouteBudget(maxAttempts: number, deadlineMs: number, now: () => number = Date.now): RouteBudget {
  let spent = 0;
  let until = deadlineMs > 0 ? now() + deadlineMs : Infinity;
  return {
    spend: () => void spent++,
    allows: (delayMs = 0, reserve = 0) => maxAttempts - spent > reserve && now() + delayMs < until,
    restart: () => {
      until = deadlineMs > 0 ? now() + deadlineMs : Infinity;
    },
  };
}
