import { CapacityError } from '../core/errors.js';
import type { RouteContext } from './RouteContext.js';

/**
 * The error of a route whose every target's breaker is open: `CapacityError('upstream_busy')` with a `Retry-After`
 * until the first breaker lets a probe through (at least 1 s).
 *
 * @param route - The route.
 * @returns The error.
 */
export function allTargetsOpen(route: RouteContext): CapacityError {
  const now = Date.now();
  const at = Math.min(...route.targets.map((t) => t.breaker?.retryAt ?? now));
  return new CapacityError(
    'upstream_busy',
    `every target of route "${route.name}" is unavailable (circuit breakers open); retry later`,
    { retryAfterSeconds: Math.max(1, Math.ceil((at - now) / 1000)) },
  );
}
