import { defer, finalize, type Observable } from 'rxjs';
import { isAbortedError } from '../core/errors.js';
import { DEFAULT_RETRY_POLICY } from '../core/retryPolicy.js';
import type { ChatCompletionChunk } from '../core/schemas/index.js';
import { continueAfterCut } from '../operators/continueAfterCut.js';
import type { ChatCallOptions, ChatClientRequest } from './createChatClient.js';
import type { ChatRouteConfig } from './ChatRouteConfig.js';
import { nextRouteTarget } from './nextRouteTarget.js';
import type { RouteCall } from './RouteCall.js';
import type { RouteContext } from './RouteContext.js';
import { routeContinuation } from './routeContinuation.js';
import { routeFailover } from './routeFailover.js';
import type { RouteTarget } from './RouteTarget.js';

/** Where a restarted answer starts: the targets to try, in order, and the continuations it has left. */
export interface RouteRestart {
  /** Indexes into the route's targets. */
  order: readonly number[];
  /** The continuations left to the restarted answer. */
  maxContinuations: number;
  /** The cut that could not be continued: what surfaces when the budget allows no restart. */
  cut: unknown;
}

/**
 * One call of a route as upstream chunks: a failover over every target (`nextRouteTarget` picks where a failure goes),
 * its cuts continued (`routeContinuation`, at most `maxContinuations`), each segment accounted on `call`
 * (`RouteCall.endSegment`); when the answer ends or the caller leaves, the half-open probes whose outcome is not in are
 * released. A restart (`restartRoute`) runs the same over `restart.order`, each failure moving on to the next.
 *
 * @param route - The route.
 * @param config - The route's options (`failoverOnSilence`, `failoverOnContentPolicy`, `maxContinuations`).
 * @param request - The caller's request.
 * @param options - The call's options.
 * @param call - The call's bookkeeping, filled as the answer goes.
 * @param restart - For a restarted answer: its targets' order and its continuations left.
 * @returns The spliced chunks (cold: each subscription is one call).
 */
export function spliceRoute(
  route: RouteContext,
  config: ChatRouteConfig,
  request: ChatClientRequest,
  options: ChatCallOptions,
  call: RouteCall,
  restart?: RouteRestart,
): Observable<ChatCompletionChunk> {
  const { targets } = route;
  return defer(() => {
    const plain = (target: RouteTarget): ChatClientRequest =>
      target.client.model === undefined ? request : ({ ...request, model: target.client.model } as ChatClientRequest);
    const first = routeFailover(
      route,
      call,
      restart?.order ?? targets.map((_, i) => i),
      (target) => ({ body: plain(target), dialect: undefined }),
      restart === undefined
        ? (error, index) =>
            nextRouteTarget(error, index, targets.map((t) => t.config.contextWindow), {
              silence: config.failoverOnSilence ?? true,
              contentPolicy: config.failoverOnContentPolicy ?? false,
            })
        : (error, position) => (isAbortedError(error) ? undefined : position + 1),
      options,
      restart?.cut,
    );
    return first.pipe(
      continueAfterCut({
        continueWith: routeContinuation(route, call, plain, options),
        maxContinuations: restart?.maxContinuations ?? config.maxContinuations ?? 3,
        failedFinishReasons: DEFAULT_RETRY_POLICY.finishReasons,
        onSegment: (segment) => call.endSegment(segment),
      }),
      // The caller left (or the answer ended) with outcomes not in: neither a success nor a failure.
      finalize(() => call.end()),
    );
  });
}
