import { Observable, Subscription, type MonoTypeOperatorFunction } from 'rxjs';
import { AnswerFailedError, ConfigError } from '../core/errors.js';
import type { ChatCompletionChunk, ChunkChoice, Usage } from '../core/schemas/upstream.js';
import { chunkUsage } from './chunkUsage.js';
import { deltaContent } from './deltaContent.js';
import { deltaReasoning } from './deltaReasoning.js';
import { isAnswerPiece } from './isAnswerPiece.js';
import { isCutError } from './isCutError.js';

/** What {@link continueAfterCut} asks its factory to continue. */
export interface ContinuationRequest {
  /** The answer's text delivered so far (choice 0): the assistant prefix to continue. `''` when none. */
  content: string;
  /** The reasoning delivered so far. */
  reasoning: string;
  /** What cut the answer. */
  error: unknown;
  /** 1 for the first continuation of this answer, 2 for the next, … */
  continuation: number;
}

/** What {@link continueAfterCut} reports of each segment of the spliced answer. */
export interface ContinuationSegment {
  /** 0 for the original stream, then 1, 2, … for each continuation. */
  segment: number;
  /** `complete`: it ended the answer; `cut`: it was cut (and maybe continued); `failed`: a continuation that delivered nothing. */
  outcome: 'complete' | 'cut' | 'failed';
  /** The usage it reported (a cut stream usually reports none; an `insufficient_system_resource` finish does). */
  usage?: Usage;
  /** The model its chunks named. */
  model?: string;
  /** Why it was cut or failed. */
  error?: unknown;
  /** Whether it delivered any chunk. */
  delivered: boolean;
  /**
   * How many of its chunks carried a piece of the answer (text, reasoning, a tool-call fragment, a refusal): about the
   * tokens it generated, as providers stream about one token per chunk — an estimate where `usage` is missing.
   */
  pieces: number;
}

/** Options of {@link continueAfterCut}. */
export interface ContinueAfterCutConfig {
  /**
   * Makes the continuation: a stream of chunks that continue `request.content` (the provider sent the partial
   * answer as an assistant prefix), or `undefined` when nobody can continue (then the cut's error surfaces).
   */
  continueWith: (request: ContinuationRequest) => Observable<ChatCompletionChunk> | undefined;
  /** Which errors are cuts worth continuing (default {@link isCutError}). */
  isCut?: (error: unknown) => boolean;
  /** Finish reasons that fail the answer and are continued like a cut (default `['insufficient_system_resource']`). */
  failedFinishReasons?: readonly string[];
  /** The most continuations of one answer (default 3). */
  maxContinuations?: number;
  /** Told of each segment when it ends (for usage and attempt accounting). */
  onSegment?: (segment: ContinuationSegment) => void;
}

const hasReasoning = (choice: ChunkChoice): boolean =>
  choice.delta != null && (choice.delta.reasoning_content != null || choice.delta.reasoning != null);

const withoutReasoning = (chunk: ChatCompletionChunk): ChatCompletionChunk => ({
  ...chunk,
  choices: chunk.choices.map((choice) => {
    if (!hasReasoning(choice)) return choice;
    const { reasoning_content: _r, reasoning: _s, ...delta } = choice.delta!;
    return { ...choice, delta };
  }),
});

const withoutFinish = (chunk: ChatCompletionChunk): ChatCompletionChunk => {
  const { usage: _usage, x_groq: _groq, ...rest } = chunk;
  return {
    ...rest,
    choices: chunk.choices.map(({ usage: _u, ...choice }) => ({ ...choice, finish_reason: null })),
  } as ChatCompletionChunk;
};

/**
 * Splices an answer that was cut mid-stream with its continuation, so that the consumer sees one answer: the text
 * delivered so far is handed to `continueWith` (which asks the same or another provider to continue it, sending it
 * as an assistant prefix) and the continuation's chunks follow the cut ones. No text twice, none missing; the
 * continuation's reasoning is dropped once the answer's text has begun (reasoning stays ahead of the text).
 *
 * ```text
 * source:        --a--b--#                 (cut: reset, idle timeout, in-band error, EOF without finish, …)
 * continueWith({ content: 'ab' }):  --c--d--|
 * result:        --a--b----c--d--|
 *
 * source:        --a--F--|                 (F: finish_reason insufficient_system_resource)
 * result:        --a--f----c--d--|         (f: F without its finish_reason and usage)
 *
 * source:        --a--#                    (continueWith → undefined, or a continuation that delivers nothing)
 * result:        --a--#                    (the cut's own error, never the continuation's)
 * ```
 *
 * 1. Follows choice 0 of single-choice answers. An answer that streamed tool-call fragments, a refusal or other
 *    choices is not continued (a prefix cannot carry them): its error passes through.
 * 2. A cut is an error `isCut` accepts after the stream began (its first chunk arrived), or a finish reason in
 *    `failedFinishReasons` (that chunk is forwarded without its finish reason and usage; the cut's error is an
 *    `AnswerFailedError`). An error before the first chunk is not a cut: it passes through, whatever `isCut` says.
 * 3. Up to `maxContinuations` per answer; a continuation cut again is continued with all the text so far.
 * 4. A continuation that fails before its first chunk (a prefill refused, nobody left) surfaces the cut's own
 *    error. Any other error, and every error before a cut, passes through.
 * 5. `onSegment` reports each segment's usage, model and pieces: the usage of a spliced answer is the sum over its
 *    segments (the consumer's last chunk carries only the final segment's); a cut segment's, when its provider never
 *    sent it, can be estimated from its `pieces`.
 *
 * ## Example
 * ```ts
 * primary.chunks(request).pipe(
 *   continueAfterCut({ continueWith: ({ content }) => backup.chunks(withPrefix(request, content)) }),
 *   toOutputChunks(),
 * );
 * ```
 *
 * @param config - The continuation factory and the limits.
 * @returns An operator that mirrors the source, continued after a cut.
 * @throws ConfigError when `maxContinuations` is not a non-negative integer.
 */
export function continueAfterCut(config: ContinueAfterCutConfig): MonoTypeOperatorFunction<ChatCompletionChunk> {
  const max = config.maxContinuations ?? 3;
  if (!Number.isInteger(max) || max < 0) {
    throw new ConfigError(`continueAfterCut: \`maxContinuations\` must be a non-negative integer, got ${String(max)}; omit it for 3.`);
  }
  const isCut = config.isCut ?? isCutError;
  const failed = config.failedFinishReasons ?? ['insufficient_system_resource'];
  return (source) =>
    new Observable<ChatCompletionChunk>((subscriber) => {
      const all = new Subscription();
      let content = '';
      let reasoning = '';
      let blocked = false; // tool calls, a refusal or several choices: a prefix cannot carry them
      let continuations = 0;
      const guard =
        <A extends unknown[]>(handler: (...args: A) => void) =>
        (...args: A): void => {
          try {
            handler(...args);
          } catch (error) {
            subscriber.error(error);
          }
        };
      const run = (segmentSource: Observable<ChatCompletionChunk>, segment: number, cause: unknown): void => {
        let usage: Usage | undefined;
        let model: string | undefined;
        let failedReason: string | undefined;
        let delivered = false;
        let pieces = 0;
        const report = (outcome: ContinuationSegment['outcome'], error?: unknown): void =>
          config.onSegment?.({
            segment,
            outcome,
            delivered,
            pieces,
            ...(usage === undefined ? {} : { usage }),
            ...(model === undefined ? {} : { model }),
            ...(error === undefined ? {} : { error }),
          });
        const end = (error: unknown): void => {
          if (segment > 0 && !delivered) {
            report('failed', error);
            return subscriber.error(cause);
          }
          report('cut', error);
          // Nothing delivered yet: the stream never began, so there is nothing to continue (rule 2).
          if (!delivered || blocked || continuations >= max || !isCut(error)) return subscriber.error(error);
          const next = config.continueWith({ content, reasoning, error, continuation: ++continuations });
          if (next === undefined) return subscriber.error(error);
          run(next, segment + 1, error);
        };
        // A throw of a callback (`continueWith`, `isCut`, `onSegment`) errors the result: inside a plain observer it
        // would be reported as an unhandled error and the consumer would wait forever.
        const subscription = segmentSource.subscribe({
          next: guard((chunk: ChatCompletionChunk) => {
            delivered = true;
            if (typeof chunk.model === 'string' && chunk.model !== '') model = chunk.model;
            const first = chunk.choices.find((choice) => (choice.index ?? 0) === 0);
            const found = chunkUsage(chunk) ?? first?.usage ?? undefined;
            if (found != null) usage = found;
            if (first?.delta != null && isAnswerPiece(first.delta)) pieces++;
            if (failedReason !== undefined) return; // after a failed finish: only its usage counts
            if (chunk.choices.some((choice) => (choice.index ?? 0) !== 0)) blocked = true;
            let out = chunk;
            const delta = first?.delta;
            if (delta != null) {
              if ((delta.tool_calls?.length ?? 0) > 0 || (typeof delta.refusal === 'string' && delta.refusal !== '')) blocked = true;
              if (segment > 0 && content !== '' && hasReasoning(first!)) out = withoutReasoning(out);
              else reasoning += deltaReasoning(delta) ?? '';
              content += deltaContent(delta);
            }
            const reason = first?.finish_reason;
            if (typeof reason === 'string' && failed.includes(reason)) {
              failedReason = reason;
              out = withoutFinish(out);
            }
            subscriber.next(out);
          }),
          error: guard(end),
          complete: guard(() => {
            if (failedReason === undefined) {
              report('complete');
              return subscriber.complete();
            }
            end(new AnswerFailedError(failedReason, `the upstream answer failed with finish_reason "${failedReason}"`));
          }),
        });
        all.add(subscription);
      };
      run(source, 0, undefined);
      return () => all.unsubscribe();
    });
}
