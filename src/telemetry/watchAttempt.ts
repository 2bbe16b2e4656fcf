import type { MonoTypeOperatorFunction } from 'rxjs';
import type { ChatCompletionChunk } from '../core/schemas/index.js';
import type { CompletionCall } from './CompletionCall.js';
import { watchNotifications } from './watchNotifications.js';

/**
 * Reports one attempt of a traced completion to its {@link CompletionCall}: the attempt's start (a retry, from the
 * second on), each chunk, and its failure (a timeout becomes a span event). Without a call it is the identity, at no
 * cost per chunk.
 *
 * ```text
 * source:        --a--b--#
 * watchAttempt(call)
 * result:        --a--b--#      (call.attempt(), call.chunk(a), call.chunk(b), call.attemptFailed(error))
 * ```
 *
 * @param call - The completion's call, or `undefined` when nothing is recorded.
 * @returns The chunks, unchanged.
 */
export function watchAttempt(call: CompletionCall | undefined): MonoTypeOperatorFunction<ChatCompletionChunk> {
  if (call === undefined) return (source) => source;
  // One subscriber per attempt whose own next() calls `call.chunk` (see watchNotifications: `tap`'s is a few calls more).
  return watchNotifications<ChatCompletionChunk>({
    subscribe: () => call.attempt(),
    next: (chunk) => call.chunk(chunk),
    error: (error: unknown) => call.attemptFailed(error),
  });
}
