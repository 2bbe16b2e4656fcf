import { addUsage } from '../core/addUsage.js';
import type { ContinuationSegment } from '../operators/continueAfterCut.js';
import { estimateUsage } from './estimateUsage.js';
import type { RouteCall } from './RouteCall.js';
import { routeAttemptOf } from './routeAttemptOf.js';
import type { RouteContext } from './RouteContext.js';
import { settleRouteTarget } from './settleRouteTarget.js';

/**
 * The accounting of one segment of a spliced answer (`continueAfterCut`'s `onSegment`), for the target delivering it:
 * its usage counts when its text was delivered (a cut one's estimated when its provider never reported it, see
 * `estimateUsage`), and its completion tokens are the answer's so far; a complete segment is the target's success (its breaker closes, it
 * is the finisher, `completed`), a cut one settles its breaker and is where the continuation looks past (`cut`).
 * A failed segment (no target delivered) was recorded by the failover already.
 *
 * @param route - The route.
 * @param call - The call's bookkeeping.
 * @param segment - The segment's report.
 */
export function recordRouteSegment(route: RouteContext, call: RouteCall, segment: ContinuationSegment): void {
  const target = call.active;
  if (segment.outcome === 'failed' || target === undefined) return;
  if (segment.delivered) {
    // A cut segment whose provider never reported its usage is estimated (and flagged), not left out.
    const estimate = segment.usage === undefined && segment.outcome === 'cut' && segment.pieces > 0;
    const usage = estimate ? estimateUsage(call.sent, segment.pieces) : segment.usage;
    if (estimate) call.estimated = true;
    call.usage = addUsage(call.usage, usage);
    call.answerTokens += usage?.completion_tokens ?? segment.pieces;
  }
  if (segment.outcome === 'complete') {
    call.pending.delete(target);
    target.breaker?.success();
    call.finisher = { target, model: segment.model };
    route.record(call, routeAttemptOf(target, 'completed'));
  } else {
    call.cut = target;
    settleRouteTarget(call, target, segment.error);
    route.record(call, routeAttemptOf(target, 'cut', segment.error));
  }
  call.active = undefined;
}
