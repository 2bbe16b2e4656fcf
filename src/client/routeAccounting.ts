import type { RouteAttempt, Usage } from '../core/schemas/index.js';
import type { RouteCall } from './RouteCall.js';

/**
 * What a route's answer carries of its call: `model`, `provider` and `target` (its name) of the target that finished
 * (the model its last segment named, else the target's), the usage summed over the delivered segments
 * (`usage_estimated` when part of it is an estimate), and every attempt.
 *
 * @param call - The call's bookkeeping.
 * @returns The fields to put on the last `stream()` chunk or the `json()` answer.
 */
export function routeAccounting(call: RouteCall): {
  model?: string;
  provider?: string;
  target?: string;
  usage?: Usage;
  usage_estimated?: boolean;
  attempts: RouteAttempt[];
} {
  const finisher = call.finisher;
  const model = finisher?.model ?? finisher?.target.client.model;
  return {
    ...(model === undefined ? {} : { model }),
    ...(finisher === undefined ? {} : { provider: finisher.target.client.provider, target: finisher.target.name }),
    ...(call.usage === undefined ? {} : { usage: call.usage }),
    ...(call.estimated ? { usage_estimated: true } : {}),
    attempts: call.attempts,
  };
}
