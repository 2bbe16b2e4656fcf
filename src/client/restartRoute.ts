import { catchError, defer, Observable, tap, throwError } from 'rxjs';
import type { ChatCompletionChunk } from '../core/schemas/index.js';
import { isAnswerPiece } from '../operators/isAnswerPiece.js';
import { isCutError } from '../operators/isCutError.js';
import type { ChatCallOptions, ChatClientRequest } from './createChatClient.js';
import type { ChatRouteConfig } from './ChatRouteConfig.js';
import type { RouteCall } from './RouteCall.js';
import type { RouteContext } from './RouteContext.js';
import { spliceRoute, type RouteRestart } from './spliceRoute.js';
import { targetsAfter } from './targetsAfter.js';

/**
 * A route's call that starts its answer again where it cannot be continued: an answer cut after text reached the
 * caller, that no target could continue (none takes a prefill, each refused it or answered afresh, or the answer
 * holds tool calls), is asked again, whole, with the caller's request — the targets after the one that cut first,
 * then the same one, then the earlier ones (`targetsAfter`) — within the route's `maxContinuations` (each cut spends
 * one) and the call's budget (`createRouteBudget`: a restart's requests are attempts like any other; spent, the cut
 * surfaces).
 *
 * 1. `announce` makes the value that tells the caller the answer starts again, before the restarted answer's first
 *    value (`json()` has none: its one value is the restarted answer). Without `announce` and `restart: false` the
 *    cut's error surfaces, as without a restart.
 * 2. A restart that delivers nothing (every target failed) surfaces the cut's own error, never a restart's failure.
 * 3. A restarted answer is continued and restarted by the same rules.
 * 4. The discarded answer's usage stays in the call's `usage` (its provider generated and billed it); its tokens no
 *    longer count against the restarted answer's `max_tokens`.
 *
 * @param route - The route.
 * @param config - The route's options (`maxContinuations`).
 * @param request - The caller's request.
 * @param options - The call's options.
 * @param call - The call's bookkeeping.
 * @param finish - The call's result made of spliced chunks (`toOutput`, `toOutputChunks`).
 * @param restart - Whether a cut answer starts again (`json()` always; `stream()` when its caller accepts it).
 * @param announce - The value announcing a restart, made of the cut's error.
 * @returns The call's result.
 */
export function restartRoute<T>(
  route: RouteContext,
  config: ChatRouteConfig,
  request: ChatClientRequest,
  options: ChatCallOptions,
  call: RouteCall,
  finish: (chunks: Observable<ChatCompletionChunk>) => Observable<T>,
  restart: boolean,
  announce?: (error: unknown) => T,
): Observable<T> {
  const { targets } = route;
  const max = config.maxContinuations ?? 3;
  const attempt = (from: RouteRestart | undefined): Observable<T> =>
    defer(() => {
      const chunks = spliceRoute(route, config, request, options, call, from);
      if (!restart) return finish(chunks);
      // Only a call that can restart watches whether text reached its caller (no work per chunk otherwise).
      let delivered = false;
      const watched = chunks.pipe(
        tap((chunk) => {
          if (!delivered && chunk.choices.some((choice) => choice.delta != null && isAnswerPiece(choice.delta))) delivered = true;
        }),
      );
      return finish(watched).pipe(
        catchError((error: unknown) => {
          const cuts = call.attempts.filter((a) => a.outcome === 'cut').length;
          // A restart is an upstream attempt: none once the call's budget is spent.
          if (!delivered || !isCutError(error) || cuts > max || !call.budget.allows()) return throwError(() => error);
          const order = targetsAfter(call.cut === undefined ? 0 : targets.indexOf(call.cut), targets.length);
          call.restartAnswer(); // the answer starts again: its token limits too
          const again = attempt({ order, maxContinuations: max - cuts, cut: error });
          return firstValue(again, announce?.(error), error);
        }),
      );
    });
  return attempt(undefined);
}

/** `source`, with `first` before its first value; when it fails before any, `cut` instead of its error. */
const firstValue = <T>(source: Observable<T>, first: T | undefined, cut: unknown): Observable<T> =>
  new Observable<T>((subscriber) => {
    let started = false;
    return source.subscribe({
      next: (value) => {
        if (!started) {
          started = true;
          if (first !== undefined) subscriber.next(first);
        }
        subscriber.next(value);
      },
      error: (error: unknown) => subscriber.error(started ? error : cut),
      complete: () => subscriber.complete(),
    });
  });
