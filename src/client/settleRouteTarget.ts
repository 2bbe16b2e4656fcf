import { isTargetFault } from './isTargetFault.js';
import type { RouteCall } from './RouteCall.js';
import type { RouteTarget } from './RouteTarget.js';

/**
 * A target's failure is in: it is no longer pending, and its breaker counts a failure (of the call's caller) when the
 * error is the target's fault, else, when it was its breaker's half-open probe, gives the probe's place back (neither a success nor a failure).
 *
 * @param call - The call's bookkeeping.
 * @param target - The target that failed or was cut.
 * @param error - Its error.
 */
export function settleRouteTarget(call: RouteCall, target: RouteTarget, error: unknown): void {
  const probe = call.pending.get(target) === true;
  call.pending.delete(target);
  if (isTargetFault(error)) target.breaker?.failure(call.caller);
  else if (probe) target.breaker?.release();
}
