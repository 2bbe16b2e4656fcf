import type { RouteBudget } from './createRouteBudget.js';
import type { RouteCall } from './RouteCall.js';

/**
 * The bookkeeping of a new call: no attempt, no target active or cut, nothing pending, no usage, no token delivered,
 * no finisher.
 *
 * @param budget - What the call may spend upstream.
 * @param caller - Who the call is for.
 * @returns A fresh {@link RouteCall}.
 */
export function newRouteCall(budget: RouteBudget, caller?: string): RouteCall {
  return {
    attempts: [],
    active: undefined,
    cut: undefined,
    pending: new Map(),
    usage: undefined,
    estimated: false,
    answerTokens: 0,
    sent: undefined,
    finisher: undefined,
    budget,
    caller,
  };
}
