import { retryOnTransient, type RetryOnTransientConfig } from '../operators/retryOnTransient.js';
import { createChatClient } from './createChatClient.js';
import type { ChatRouteConfig } from './ChatRouteConfig.js';
import type { ChatRouteEvent } from './ChatRouteEvent.js';
import { createCircuitBreaker, DEFAULT_CIRCUIT_BREAKER, type CircuitState } from './createCircuitBreaker.js';
import { shareCircuitBreaker } from './shareCircuitBreaker.js';
import { PROVIDERS } from './providers.js';
import type { RouteTarget } from './RouteTarget.js';

/**
 * A route's first-token budget by default (`ChatRouteConfig.silenceMs`): a fallback's answer must still reach its
 * caller within 15 s of the request when the primary says nothing at all.
 */
const DEFAULT_SILENCE_MS = 10_000;

/** How long a shared breaker's probe claim holds, ms: a process that dies probing frees the probe then. */
const PROBE_TTL_MS = 30_000;

/**
 * The targets of a route, in order: every target but the last gets the first-token budget (`silenceMs`, default
 * 10 000) as its `headers`/`silence` deadlines unless it sets its own (its `firstChunk` stays the client's: a target
 * queuing with keep-alive comments is not abandoned); each gets its client (with `retry: false`: the
 * route retries), a name unique within the route (`provider:model`, numbered `#2`, `#3` when alike), its prefill
 * dialect (by default its preset's, `PROVIDERS[provider].prefill`) and its circuit breaker, whose transitions go to `emit`.
 *
 * @param config - The route's options.
 * @param routeName - The route's name, for the breaker events.
 * @param emit - Told of each breaker transition.
 * @param failed - With `config.breakerStore`: told of a store call that failed (each breaker is then shared through it).
 * @returns The targets.
 * @throws ConfigError for a bad target configuration (each target's client is created now).
 */
export function resolveRouteTargets(
  config: ChatRouteConfig,
  routeName: string,
  emit: (event: ChatRouteEvent) => void,
  failed: (error: unknown) => void = () => undefined,
): RouteTarget[] {
  const seen = new Map<string, number>();
  const silenceMs = config.silenceMs ?? DEFAULT_SILENCE_MS;
  const last = config.targets.length - 1;
  return config.targets.map((given, position) => {
    const target =
      position === last
        ? given
        : {
            ...given,
            // `??`, not a spread: a deadline given as `undefined` keeps the silence budget.
            timeouts: { ...given.timeouts, headers: given.timeouts?.headers ?? silenceMs, silence: given.timeouts?.silence ?? silenceMs },
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
    const onTransition = ({ from, to }: { from: CircuitState; to: CircuitState }): void => emit({ type: 'breaker', route: routeName, target: name, from, to });
    const store = config.breakerStore;
    const breaker =
      config.breaker === false
        ? undefined
        : store === undefined
          ? createCircuitBreaker(config.breaker ?? {}, onTransition)
          : shareCircuitBreaker(createCircuitBreaker(config.breaker ?? {}), {
              store,
              name: `${routeName}/${name}`,
              coolDownMs: config.breaker?.coolDownMs ?? DEFAULT_CIRCUIT_BREAKER.coolDownMs,
              probeTtlMs: PROBE_TTL_MS,
              failed,
              onTransition,
              ...(config.breaker?.now === undefined ? {} : { now: config.breaker.now }),
            });
    return { name, config: target, client, prefillClient: undefined, prefill, retry, breaker };
  });
}
