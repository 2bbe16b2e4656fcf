import { defer, throwError, type MonoTypeOperatorFunction, type Observable } from 'rxjs';
import type { ChatCompletionChunk } from '../core/schemas/index.js';
import { failover, type FailoverAttempt, type FailoverTarget } from '../operators/failover.js';
import { retryOnTransient } from '../operators/retryOnTransient.js';
import { allTargetsOpen } from './allTargetsOpen.js';
import type { ChatCallOptions, ChatClientRequest } from './createChatClient.js';
import { routeAttemptOf } from './routeAttemptOf.js';
import type { RouteCall } from './RouteCall.js';
import { routeClientOf } from './routeClientOf.js';
import type { RouteContext } from './RouteContext.js';
import type { RouteTarget } from './RouteTarget.js';
import type { PrefillDialect } from './withPrefill.js';

/**
 * A failover over `order` (indexes into the route's targets), each sending `bodyFor(target)` with its own retries:
 * a target whose breaker refuses is skipped, one let through is pending until its outcome is in; each retry, skip and
 * failure is recorded on the call (a failure settles the target's breaker); every target skipped: `allTargetsOpen`.
 * A half-open breaker's probe is one attempt, never retried. Every request sent spends the call's budget, which is
 * asked before each one: spent, no first target (`inHand` surfaces), retry (one that would leave no attempt for a
 * target not tried yet either) nor next target (the failure surfaces).
 *
 * @param route - The route.
 * @param call - The call's bookkeeping (told which target delivers).
 * @param order - The targets to try, in order.
 * @param bodyFor - The body a target is sent, its prefill dialect, and a check of its chunks (a continuation's).
 * @param next - Where to go after a failure (`failover`'s `next`).
 * @param options - The call's options (its signal stops the retries).
 * @param inHand - The failure a continuation or a restart answers (its cut): what surfaces when the budget leaves no
 *   attempt for the first target. Without it, the failover is the call's first, whose first attempt always goes.
 * @returns The chunks of the first target that answers.
 */
export function routeFailover(
  route: RouteContext,
  call: RouteCall,
  order: readonly number[],
  bodyFor: (target: RouteTarget) => {
    body: ChatClientRequest;
    dialect: PrefillDialect | undefined;
    check?: MonoTypeOperatorFunction<ChatCompletionChunk>;
  },
  next: (error: unknown, index: number) => number | undefined,
  options: ChatCallOptions,
  inHand?: unknown,
): Observable<ChatCompletionChunk> {
  const { targets } = route;
  const list: FailoverTarget<ChatCompletionChunk>[] = order.map((i, position) => {
    const target = targets[i]!;
    const retry = retryOnTransient<ChatCompletionChunk>({
      ...target.retry,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      // A retry keeps an attempt for each target after this one.
      shouldRetry: (event) => call.budget.allows(event.delayMs, order.length - position - 1) && (target.retry.shouldRetry?.(event) ?? true),
      onRetry: (event) => {
        target.retry.onRetry?.(event);
        call.record(routeAttemptOf(target, 'retried', event.error));
      },
    });
    return {
      name: target.name,
      source: () => {
        const { body, dialect, check } = bodyFor(target);
        const attempt = defer(() => {
          call.send(body);
          const chunks = routeClientOf(target, dialect).chunks(body, options);
          // Inside the target's source: a check's error comes before its first chunk, so the failover moves on.
          return check === undefined ? chunks : chunks.pipe(check);
        });
        // The probe of a half-open breaker (let through by `skip` just now) is one attempt: retried, a target that is
        // still down would hold its caller for its whole retry budget before the next target answers.
        return call.pending.get(target) === true ? attempt : attempt.pipe(retry);
      },
    };
  });
  const tried = failover(list, {
    next: (error, position) => (call.budget.allows() ? next(error, position) : undefined),
    skip: (position) => {
      const target = targets[order[position]!]!;
      const probe = target.breaker?.state === 'half_open'; // let through now, it is the probe
      if (target.breaker?.tryAcquire() === false) return true;
      call.letThrough(target, probe);
      return false;
    },
    noTarget: () => allTargetsOpen(route),
    onAttempt: (attempt: FailoverAttempt) => {
      const target = targets[order[attempt.index]!]!;
      if (attempt.outcome === 'ok') call.deliver(target);
      else if (attempt.outcome === 'skipped') call.record(routeAttemptOf(target, 'skipped'));
      else {
        call.settle(target, attempt.error);
        call.record(routeAttemptOf(target, 'failed', attempt.error));
      }
    },
  });
  // The first target asks the budget too (`failover` asks `next` only after a failure).
  return inHand === undefined ? tried : defer(() => (call.budget.allows() ? tried : throwError(() => inHand)));
}
