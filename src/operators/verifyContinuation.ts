import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError, StreamProtocolError } from '../core/errors.js';
import type { ChatCompletionChunk, ChunkDelta } from '../core/schemas/upstream.js';
import { deltaContent } from './deltaContent.js';
import { deltaReasoning } from './deltaReasoning.js';

/** Options of {@link verifyContinuation}. */
export interface VerifyContinuationConfig {
  /** The answer's text delivered so far: the assistant prefix the continuation was asked to continue. */
  content: string;
  /** The reasoning delivered so far: checked instead of the text when no text was delivered. Default `''`. */
  reasoning?: string;
  /**
   * How many characters of the delivered beginning a continuation must repeat to be taken for an answer started
   * again (default 6: a provider answering afresh repeats at least its opening, as `关于「Hi」，`; fewer when less was
   * delivered). Below it, a continuation is taken as it comes.
   */
  minRepeat?: number;
}

const DEFAULT_MIN_REPEAT = 6;

/** The length of the common beginning of `a` and `b`. */
const commonPrefix = (a: string, b: string): number => {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
};

/** The chunk with the first `count` characters of its choice 0's checked text removed. */
const trimmed = (chunk: ChatCompletionChunk, field: 'content' | 'reasoning', count: number): [ChatCompletionChunk, number] => {
  const at = chunk.choices.findIndex((choice) => (choice.index ?? 0) === 0);
  const delta = chunk.choices[at]?.delta;
  if (delta == null || count === 0) return [chunk, 0];
  const text = field === 'content' ? deltaContent(delta) : (deltaReasoning(delta) ?? '');
  const take = Math.min(count, text.length);
  if (take === 0) return [chunk, 0];
  let next: ChunkDelta;
  if (field === 'content') next = { ...delta, content: text.slice(take) };
  else {
    const { reasoning: _other, ...rest } = delta;
    next = { ...rest, reasoning_content: text.slice(take) };
    if (Array.isArray(delta.content)) next.content = deltaContent(delta); // Mistral's parts: the thinking ones were this text
  }
  const choices = chunk.choices.map((choice, i) => (i === at ? { ...choice, delta: next } : choice));
  return [{ ...chunk, choices }, take];
};

/**
 * Checks that a continuation continues: a provider asked to continue a prefix that it does not take as one answers
 * afresh, and a naive splice shows the beginning of the answer twice. The continuation's first chunks are held until
 * its text tells which it is.
 *
 * ```text
 * content: 'ABCDEFGHIJ'                (delivered; minRepeat 6)
 * source:  --x--y--|                   (text 'xy': a continuation)        result: --x--y--|
 * source:  --ABCD--EFGHIJ--k--|        (the delivered text again, exactly) result: --------(..)--k--|   (trimmed)
 * source:  --ABCD--EFGHzz--|           (it repeats, then diverges)        result: --------#            (continuation_mismatch)
 * ```
 *
 * 1. The checked text is choice 0's `content`, or its reasoning when no text was delivered (a continuation's reasoning
 *    is not checked once text was delivered: the splice drops it).
 * 2. A continuation whose text does not begin with the delivered text's first `minRepeat` characters (fewer when less
 *    was delivered) passes as it comes, once that is known.
 * 3. One that repeats all of the delivered text, exactly, passes with that repetition removed (an answer started
 *    again that is, so far, the same answer: the rest continues it).
 * 4. One that repeats at least `minRepeat` characters and then differs (or ends first) errors with
 *    `StreamProtocolError('continuation_mismatch')` before anything passed: a failed continuation.
 * 5. Nothing delivered: the source as it is. An error before the decision passes through (the held chunks are dropped).
 *
 * @param config - The delivered text and reasoning, and how long a repeat must be.
 * @returns An operator that passes a real continuation and refuses an answer started again.
 * @throws ConfigError when `minRepeat` is not a positive integer.
 */
export function verifyContinuation(config: VerifyContinuationConfig): MonoTypeOperatorFunction<ChatCompletionChunk> {
  const minRepeat = config.minRepeat ?? DEFAULT_MIN_REPEAT;
  if (!Number.isInteger(minRepeat) || minRepeat < 1) {
    throw new ConfigError(`verifyContinuation: \`minRepeat\` must be a positive integer, got ${String(minRepeat)}; omit it for ${DEFAULT_MIN_REPEAT}.`);
  }
  const field = config.content !== '' ? 'content' : 'reasoning';
  const delivered = field === 'content' ? config.content : (config.reasoning ?? '');
  if (delivered === '') return (source) => source;
  const threshold = Math.min(minRepeat, delivered.length);
  return (source) =>
    new Observable<ChatCompletionChunk>((subscriber) => {
      let held: ChatCompletionChunk[] | undefined = [];
      let seen = '';
      const release = (repeat: number): void => {
        const chunks = held!;
        held = undefined;
        let left = repeat;
        for (const chunk of chunks) {
          if (left === 0) {
            subscriber.next(chunk);
            continue;
          }
          const [out, removed] = trimmed(chunk, field, left);
          left -= removed;
          subscriber.next(out);
        }
      };
      const mismatch = (): void => {
        held = undefined;
        subscriber.error(
          new StreamProtocolError(
            'continuation_mismatch',
            `the continuation did not continue the answer: it began it again (${seen.length} characters repeated, then other text)`,
          ),
        );
      };
      /** Decides once the text tells (`final`: no more checked text comes); while it is a beginning of the delivered text, waits. */
      const decide = (final: boolean): void => {
        const common = commonPrefix(seen, delivered);
        if (common >= delivered.length) return release(delivered.length); // rule 3
        if (common < seen.length || final) return common >= threshold ? mismatch() : release(0); // rules 4, 2
      };
      source.subscribe(
        createOperatorSubscriber<ChatCompletionChunk>(
          subscriber,
          (chunk) => {
            if (held === undefined) return subscriber.next(chunk);
            held.push(chunk);
            const delta = chunk.choices.find((choice) => (choice.index ?? 0) === 0)?.delta;
            if (delta == null) return;
            const other = field === 'reasoning' ? deltaContent(delta) !== '' : false;
            const calls = (delta.tool_calls?.length ?? 0) > 0 || (typeof delta.refusal === 'string' && delta.refusal !== '');
            seen += field === 'content' ? deltaContent(delta) : (deltaReasoning(delta) ?? '');
            decide(other || calls);
          },
          () => {
            if (held !== undefined) decide(true);
            if (!subscriber.closed) subscriber.complete();
          },
        ),
      );
    });
}
