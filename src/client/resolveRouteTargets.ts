import { retryOnTransient, type RetryOnTransientConfig } from '../operators/retryOnTransient.js';
import { createChatClient } from './createChatClient.js';
import type { ChatRouteConfig, ChatRouteEvent } from './createChatRoute.js';
import { createCircuitBreaker } from './createCircuitBreaker.js';
import { PROVIDERS } from './providers.js';
import type { RouteTarget } from './RouteTarget.js';

/**
 * The targets of a route, in order: every target but the last gets the silence budget (`silenceMs`, default 30 000)
 * as its `headers`/`firstChunk` deadlines unless it sets its own; each gets its client (with `retry: false`: the
 * route retries), a name unique within the route (`provider:model`, numbered `#2`, `#3` when alike), its prefill
 * dialect (by default its preset's, `PROVIDERS[provider].prefill`) and its circuit breaker, whose transitions go to `emit`.
 *
 * @param config - The route's options.
 * @param routeName - The route's name, for the breaker events.
 * @param emit - Told of each breaker transition.
 * @returns The targets.
 * @throws ConfigError for a bad target configuration (each target's client is created now).
 */
export function resolveRouteTargets(
  config: ChatRouteConfig,
  routeName: string,
  emit: (event: ChatRouteEvent) => void,
): RouteTarget[] {
  const seen = new Map<string, number>();
  const silenceMs = config.silenceMs ?? 30_000;
  const last = config.targets.length - 1;
  return config.targets.map((given, position) => {
    const target =
      position === last
        ? given
        : {
            ...given,
            // `??`, not a spread: a deadline given as `undefined` keeps the silence budget.
            timeouts: { ...given.timeouts, headers: given.timeouts?.headers ?? silenceMs, firstChunk: given.timeouts?.firstChunk ?? silenceMs },
          };
    const retry: RetryOnTransientConfig =
      target.retry === false ? { count: 0 } : typeof target.retry === 'number' ? { count: target.retry } : (target.retry ?? {});
    retryOnTransient(retry); // the route runs the target's retries: a wrong policy is a ConfigError now, not at every call
    const client = createChatClient({ ...target, retry: false });
    const base = target.name ?? `${client.provider}:${client.model ?? 'default'}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const name = count === 1 ? base : `${base}#${count}`;
    const prefill = target.prefill ?? PROVIDERS[client.provider].prefill;
    const breaker =
      config.breaker === false
        ? undefined
        : createCircuitBreaker(config.breaker ?? {}, ({ from, to }) => emit({ type: 'breaker', route: routeName, target: name, from, to }));
    return { name, config: target, client, prefillClient: undefined, prefill, retry, breaker };
  });
}
