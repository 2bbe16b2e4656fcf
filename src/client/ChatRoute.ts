import type { ChatClient } from './createChatClient.js';
import type { CircuitState } from './createCircuitBreaker.js';

/** A route (`createChatRoute`): a {@link ChatClient} over ordered targets, with failover, circuit breakers and mid-stream continuation. */
export interface ChatRoute extends ChatClient {
  /** The route's name. */
  readonly name: string;
  /** The targets' names, in order. */
  readonly targets: readonly string[];
  /** Each target's breaker state now (`closed` for every target when breakers are off). */
  breakerStates(): Record<string, CircuitState>;
}
