import type { RouteAttempt, Usage } from '../core/schemas/index.js';
import type { ChatClientRequest } from './createChatClient.js';
import type { RouteBudget } from './createRouteBudget.js';
import type { RouteTarget } from './RouteTarget.js';

/** The bookkeeping of one call of a route (one `chunks`, `stream` or `json` subscription). */
export interface RouteCall {
  /** Each attempt so far, in order. */
  attempts: RouteAttempt[];
  /** The target delivering now. */
  active: RouteTarget | undefined;
  /** The target whose segment was cut last (where a continuation looks first past). */
  cut: RouteTarget | undefined;
  /**
   * Targets let through by their breaker whose outcome is not in yet, each with whether it is its breaker's half-open
   * probe: only a probe's place is given back (`release`) when it ends with neither outcome — a request let through
   * while the breaker was closed must not free the probe of a breaker that has since opened and half-opened.
   */
  pending: Map<RouteTarget, boolean>;
  /** The usage of the segments whose text was delivered, summed (a cut segment's estimated when it reported none). */
  usage: Usage | undefined;
  /** Whether `usage` holds an estimate (see `estimateUsage`). */
  estimated: boolean;
  /** The completion tokens of the answer so far (reported, or estimated): what a continuation's limits leave out. */
  answerTokens: number;
  /** The body the delivering target was sent (what a cut segment's prompt is estimated from). */
  sent: ChatClientRequest | undefined;
  /** The target that completed the answer, and the model its last segment named. */
  finisher: { target: RouteTarget; model: string | undefined } | undefined;
  /** What the call may still spend upstream (attempts, time). */
  budget: RouteBudget;
  /** Who the call is for (`ChatCallOptions.caller`): what the targets' breakers count failures by. */
  caller: string | undefined;
}
