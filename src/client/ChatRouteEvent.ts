import type { RouteAttempt } from '../core/schemas/index.js';
import type { CircuitState } from './createCircuitBreaker.js';

/** A route's report of one attempt (the fields of `RouteAttempt`). */
export interface ChatRouteAttemptEvent extends RouteAttempt {
  /** Always `'attempt'`. */
  type: 'attempt';
  /** The route's name. */
  route: string;
}

/** A route's report of a circuit breaker's state change. */
export interface ChatRouteBreakerEvent {
  /** Always `'breaker'`. */
  type: 'breaker';
  /** The route's name. */
  route: string;
  /** The target whose breaker changed. */
  target: string;
  /** The state before. */
  from: CircuitState;
  /** The state now. */
  to: CircuitState;
}

/** What a route reports: each attempt, and each circuit breaker's state change. */
export type ChatRouteEvent = ChatRouteAttemptEvent | ChatRouteBreakerEvent;
