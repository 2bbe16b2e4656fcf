import type { RetryOnTransientConfig } from '../operators/retryOnTransient.js';
import type { ChatClient } from './createChatClient.js';
import type { ChatRouteTarget } from './ChatRouteTarget.js';
import type { CircuitBreaker } from './createCircuitBreaker.js';
import type { PrefillDialect } from './withPrefill.js';

/** One target of a route as `createChatRoute` runs it (see {@link resolveRouteTargets}). */
export interface RouteTarget {
  /** Its name in attempts, events and logs (unique within the route). */
  name: string;
  /** Its configuration, with the route's silence budget applied. */
  config: ChatRouteTarget;
  /** Its client (no retries of its own: the route's failover retries). */
  client: ChatClient;
  /** The client of its DeepSeek prefill base URL, made on first use (see `routeClientOf`). */
  prefillClient: ChatClient | undefined;
  /** How it continues a cut answer, or `false`: it cannot. */
  prefill: PrefillDialect | false;
  /** Its retries before the route moves on. */
  retry: RetryOnTransientConfig;
  /** Its circuit breaker (`undefined` when breakers are off). */
  breaker: CircuitBreaker | undefined;
}
