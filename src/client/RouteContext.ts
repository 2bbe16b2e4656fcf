import type { RouteAttempt } from '../core/schemas/index.js';
import type { RouteCall } from './RouteCall.js';
import type { RouteTarget } from './RouteTarget.js';

/** What the parts of a route share: its name, its targets and how an attempt is recorded. */
export interface RouteContext {
  /** The route's name. */
  readonly name: string;
  /** The targets, in order. */
  readonly targets: readonly RouteTarget[];
  /** Adds an attempt to the call's list and tells the route's `onEvent`. */
  record(call: RouteCall, attempt: RouteAttempt): void;
}
