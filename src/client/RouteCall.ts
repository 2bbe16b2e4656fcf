import type { RouteAttempt, Usage } from '../core/schemas/index.js';
import type { ContinuationSegment } from '../operators/continueAfterCut.js';
import type { ChatClientRequest } from './createChatClient.js';
import type { RouteBudget } from './createRouteBudget.js';
import type { RouteTarget } from './RouteTarget.js';

/**
 * The bookkeeping of one call of a route (one `chunks`, `stream` or `json` subscription). The route's parts read it;
 * they change it only through its operations, which {@link newRouteCall} — the one module that writes it — implements.
 */
export interface RouteCall {
  /** Each attempt so far, in order. */
  readonly attempts: readonly RouteAttempt[];
  /** The target whose segment was cut last (where a continuation looks first past). */
  readonly cut: RouteTarget | undefined;
  /**
   * Targets let through by their breaker whose outcome is not in yet, each with whether it is its breaker's half-open
   * probe: only a probe's place is given back (`release`) when it ends with neither outcome — a request let through
   * while the breaker was closed must not free the probe of a breaker that has since opened and half-opened.
   */
  readonly pending: ReadonlyMap<RouteTarget, boolean>;
  /**
   * The usage of the segments whose text was delivered, summed (a cut segment's estimated when it reported none): a
   * restarted answer's discarded segments included, as their provider billed them.
   */
  readonly usage: Usage | undefined;
  /** The completion tokens of the answer so far (reported, or estimated): what a continuation's limits leave out. */
  readonly answerTokens: number;
  /** What the call may still spend upstream (attempts, time). */
  readonly budget: RouteBudget;

  /** Adds an attempt to the list and tells the route's `onEvent`. */
  record(attempt: RouteAttempt): void;
  /** A request goes upstream: it spends one of the budget's attempts, and `body` is what its prompt is estimated from. */
  send(body: ChatClientRequest): void;
  /** `target` was let through by its breaker (`probe`: as its half-open probe): pending until its outcome is in. */
  letThrough(target: RouteTarget, probe: boolean): void;
  /** `target` answered (its first chunk came): it delivers the segment now. */
  deliver(target: RouteTarget): void;
  /**
   * A target's failure is in: it is no longer pending, and its breaker counts a failure (of the call's caller) when the
   * error is the target's fault, else, when it was its breaker's half-open probe, gives the probe's place back
   * (neither a success nor a failure).
   */
  settle(target: RouteTarget, error: unknown): void;
  /**
   * The accounting of one segment of a spliced answer (`continueAfterCut`'s `onSegment`), for the target delivering
   * it: its usage counts when its text was delivered (a cut one's estimated when its provider never reported it, see
   * `estimateUsage`), and its completion tokens are the answer's so far; a complete segment is the target's success
   * (its breaker closes, it is the finisher, `completed`), a cut one settles its breaker, starts the budget's cut
   * deadline again (`RouteBudget.cut`) and is where the continuation looks past (`cut`). A failed segment (no target delivered) was recorded by the failover already.
   */
  endSegment(segment: ContinuationSegment): void;
  /** The answer used up its token limits across its segments: `target` (the one that cut) finished it. */
  endAtLimit(target: RouteTarget): void;
  /** The answer starts again (a restart): its token count too. */
  restartAnswer(): void;
  /**
   * What a route's answer carries of its call: `model`, `provider` and `target` (its name) of the target that finished
   * (the model its last segment named, else the target's), the usage summed over the delivered segments
   * (`usage_estimated` when part of it is an estimate), and every attempt (the call's list itself).
   *
   * @returns The fields to put on the last `stream()` chunk or the `json()` answer.
   */
  accounting(): {
    model?: string;
    provider?: string;
    target?: string;
    usage?: Usage;
    usage_estimated?: boolean;
    attempts: RouteAttempt[];
  };
  /**
   * The answer ended or the caller left: the half-open probes whose outcome is not in are released (neither a success
   * nor a failure), and no target is pending nor delivering.
   */
  end(): void;
}
