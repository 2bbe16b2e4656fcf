import { of, type Observable } from 'rxjs';
import { isAbortedError } from '../core/errors.js';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../core/schemas/index.js';
import type { ContinuationRequest } from '../operators/continueAfterCut.js';
import { verifyContinuation } from '../operators/verifyContinuation.js';
import type { ChatCallOptions, ChatClientRequest } from './createChatClient.js';
import type { RouteCall } from './RouteCall.js';
import type { RouteContext } from './RouteContext.js';
import { routeFailover } from './routeFailover.js';
import type { RouteTarget } from './RouteTarget.js';
import { targetsAfter } from './targetsAfter.js';
import { tokensLeft } from './tokensLeft.js';
import { withPrefill, type PrefillDialect } from './withPrefill.js';

/** The end of an answer that used up its token limits across its segments: finished by `length`, as a provider would. */
const LENGTH_FINISH: ChatCompletionChunk = {
  id: '',
  object: 'chat.completion.chunk',
  created: 0,
  model: '',
  choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
};

/**
 * How a route continues a cut answer (`continueAfterCut`'s `continueWith`): the targets after the one that cut first
 * (it is suspect), then the same one, then the earlier ones — only those that accept a prefill, each sent the text so
 * far as an assistant prefix, and checked (`verifyContinuation`: an answer started again is trimmed when it repeats the
 * text so far exactly, else a failed continuation, `continuation_mismatch`); when nothing reached the caller yet, any
 * target starts over with the plain request. Each failure moves on to the next (an abort stops). No target fits, or
 * no attempt is left in the call's budget (see `createRouteBudget`): `undefined` (the cut surfaces).
 * A continuation is sent the request's token limits less the tokens delivered (`tokensLeft`); none left: the answer
 * ends there, `finish_reason: "length"`, without another call.
 *
 * @param route - The route.
 * @param call - The call's bookkeeping (`cut`: the target that cut last).
 * @param plain - The caller's request as a target is sent it.
 * @param options - The call's options.
 * @returns The `continueWith` of the call.
 */
export function routeContinuation(
  route: RouteContext,
  call: RouteCall,
  plain: (target: RouteTarget) => ChatClientRequest,
  options: ChatCallOptions,
): (request: ContinuationRequest) => Observable<ChatCompletionChunk> | undefined {
  const { targets } = route;
  return ({ content, reasoning, error }) => {
    if (!call.budget.allows()) return undefined;
    const cut = call.cut === undefined ? 0 : targets.indexOf(call.cut);
    const fresh = content === '' && reasoning === ''; // nothing reached the caller: any target can start over
    // A continuation asks for what the request's token limits still allow; with none left, the answer is complete.
    const { left, limits } = tokensLeft(plain(targets[cut]!), call.answerTokens);
    if (!fresh && left <= 0) {
      call.endAtLimit(targets[cut]!);
      return of(LENGTH_FINISH);
    }
    // The next targets first (the one that cut is suspect), then the same one, then the earlier ones.
    const order = targetsAfter(cut, targets.length).filter((i) => fresh || targets[i]!.prefill !== false);
    if (order.length === 0) return undefined;
    return routeFailover(
      route,
      call,
      order,
      (target) =>
        fresh
          ? { body: plain(target), dialect: undefined }
          : {
              body: { ...withPrefill(plain(target) as ChatCompletionRequest, content, reasoning, target.prefill as PrefillDialect), ...limits },
              dialect: target.prefill as PrefillDialect,
              check: verifyContinuation({ content, reasoning }),
            },
      (failure, position) => (isAbortedError(failure) ? undefined : position + 1),
      options,
      error,
    );
  };
}
