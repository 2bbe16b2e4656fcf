import type { RouteTarget } from './RouteTarget.js';

/** What the parts of a route share: its name and its targets (a call's attempts are recorded on its `RouteCall`). */
export interface RouteContext {
  /** The route's name. */
  readonly name: string;
  /** The targets, in order. */
  readonly targets: readonly RouteTarget[];
}
