import type { RouteAttempt } from '../core/schemas/index.js';
import { describeRouteError } from './describeRouteError.js';
import type { RouteTarget } from './RouteTarget.js';

/**
 * One attempt's report: the target, its provider and model, the outcome and (for a failure) its error described.
 *
 * @param target - The target tried.
 * @param outcome - How it went.
 * @param error - Its error, if any.
 * @returns The attempt.
 */
export function routeAttemptOf(target: RouteTarget, outcome: RouteAttempt['outcome'], error?: unknown): RouteAttempt {
  return {
    target: target.name,
    provider: target.client.provider,
    ...(target.client.model === undefined ? {} : { model: target.client.model }),
    outcome,
    ...(error === undefined ? {} : describeRouteError(error)),
  };
}
