import { addUsage } from '../core/addUsage.js';
import type { RouteAttempt, Usage } from '../core/schemas/index.js';
import type { ChatClientRequest } from './createChatClient.js';
import type { RouteBudget } from './createRouteBudget.js';
import { estimateUsage } from './estimateUsage.js';
import { isTargetFault } from './isTargetFault.js';
import type { RouteCall } from './RouteCall.js';
import { routeAttemptOf } from './routeAttemptOf.js';
import type { RouteTarget } from './RouteTarget.js';

/**
 * The bookkeeping of a new call: no attempt, no target active or cut, nothing pending, no usage, no token delivered,
 * no finisher. The one module that changes a {@link RouteCall}: its state lives here, and the route's parts change it
 * through the operations returned.
 *
 * @param budget - What the call may spend upstream.
 * @param caller - Who the call is for.
 * @param onAttempt - Told of each attempt recorded, after it is added (the route's `onEvent`).
 * @returns A fresh {@link RouteCall}.
 */
export function newRouteCall(budget: RouteBudget, caller?: string, onAttempt: (attempt: RouteAttempt) => void = () => undefined): RouteCall {
  const attempts: RouteAttempt[] = [];
  const pending = new Map<RouteTarget, boolean>();
  /** The target delivering now. */
  let active: RouteTarget | undefined;
  let cut: RouteTarget | undefined;
  let usage: Usage | undefined;
  /** Whether `usage` holds an estimate (see `estimateUsage`). */
  let estimated = false;
  let answerTokens = 0;
  /** The body the delivering target was sent (what a cut segment's prompt is estimated from). */
  let sent: ChatClientRequest | undefined;
  /** The target that completed the answer, and the model its last segment named. */
  let finisher: { target: RouteTarget; model: string | undefined } | undefined;

  const record = (attempt: RouteAttempt): void => {
    attempts.push(attempt);
    onAttempt(attempt);
  };
  const settle = (target: RouteTarget, error: unknown): void => {
    const probe = pending.get(target) === true;
    pending.delete(target);
    if (isTargetFault(error)) target.breaker?.failure(caller);
    else if (probe) target.breaker?.release();
  };

  return {
    attempts,
    get cut() {
      return cut;
    },
    pending,
    get usage() {
      return usage;
    },
    get answerTokens() {
      return answerTokens;
    },
    budget,
    record,
    send(body) {
      budget.spend();
      sent = body;
    },
    letThrough(target, probe) {
      pending.set(target, probe);
    },
    deliver(target) {
      active = target;
    },
    settle,
    endSegment(segment) {
      const target = active;
      if (segment.outcome === 'failed' || target === undefined) return;
      if (segment.delivered) {
        // A cut segment whose provider never reported its usage is estimated (and flagged), not left out.
        const estimate = segment.usage === undefined && segment.outcome === 'cut' && segment.pieces > 0;
        const used = estimate ? estimateUsage(sent, segment.pieces) : segment.usage;
        if (estimate) estimated = true;
        usage = addUsage(usage, used);
        answerTokens += used?.completion_tokens ?? segment.pieces;
      }
      if (segment.outcome === 'complete') {
        pending.delete(target);
        target.breaker?.success();
        finisher = { target, model: segment.model };
        record(routeAttemptOf(target, 'completed'));
      } else {
        cut = target;
        budget.cut(); // the cut's deadline starts again
        settle(target, segment.error);
        record(routeAttemptOf(target, 'cut', segment.error));
      }
      active = undefined;
    },
    endAtLimit(target) {
      finisher = { target, model: undefined };
    },
    restartAnswer() {
      answerTokens = 0;
    },
    accounting() {
      const model = finisher?.model ?? finisher?.target.client.model;
      return {
        ...(model === undefined ? {} : { model }),
        ...(finisher === undefined ? {} : { provider: finisher.target.client.provider, target: finisher.target.name }),
        ...(usage === undefined ? {} : { usage }),
        ...(estimated ? { usage_estimated: true } : {}),
        attempts,
      };
    },
    end() {
      for (const [target, probe] of pending) if (probe) target.breaker?.release();
      pending.clear();
      active = undefined;
    },
  };
}
