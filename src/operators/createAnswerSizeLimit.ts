import { ConfigError, StreamProtocolError } from '../core/errors.js';
import type { ChatCompletionChunk } from '../core/schemas/upstream.js';

/** Counts what a buffering result holds of an answer; see {@link createAnswerSizeLimit}. */
export interface AnswerSizeLimit {
  /** Adds the size of `chunk`'s deltas; throws `StreamProtocolError('answer_too_large')` past the cap. */
  push(chunk: ChatCompletionChunk): void;
}

/** Below this nesting a value counts 1 whatever it holds (deep values are not accumulated: latest wins). */
const MAX_DEPTH = 16;

const sizeOf = (value: unknown, depth: number): number => {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return 1;
  let size = 1;
  if (Array.isArray(value)) for (const item of value) size += sizeOf(item, depth + 1);
  else for (const key in value) size += sizeOf((value as Record<string, unknown>)[key], depth + 1);
  return size;
};

/**
 * Checks a `maxAnswerChars` setting and creates the counter that enforces it, for the operators that hold a whole
 * answer (`toOutput`, `accumulateDeltas`).
 *
 * The size of an answer is what such an operator accumulates, counted as chunks arrive: the characters of every string
 * in the choices' deltas (content, reasoning, refusals, tool-call ids, names and arguments) and log probabilities, and
 * 1 for every other value. Past the cap the counter throws `StreamProtocolError('answer_too_large')`, which errors the
 * operator and so unsubscribes from the source (aborting the upstream request). O(size of the chunk) per chunk.
 *
 * @param maxChars - The cap; `0` or `Infinity`: none.
 * @param caller - The operator's name, for the `ConfigError` of a bad cap.
 * @returns The counter, or `undefined` when there is no cap.
 * @throws ConfigError when `maxChars` is not a non-negative integer (or `Infinity`).
 */
export function createAnswerSizeLimit(maxChars: number, caller: string): AnswerSizeLimit | undefined {
  if (!(maxChars >= 0) || (maxChars !== Infinity && !Number.isInteger(maxChars))) {
    throw new ConfigError(
      `${caller}: \`maxAnswerChars\` must be a non-negative integer (0 or Infinity: no cap), got ${String(maxChars)}.`,
    );
  }
  if (maxChars === 0 || maxChars === Infinity) return undefined;
  let size = 0;
  return {
    push(chunk) {
      const choices = chunk.choices;
      for (let i = 0; i < choices.length; i++) {
        const choice = choices[i]!;
        if (choice.delta !== undefined && choice.delta !== null) size += sizeOf(choice.delta, 0);
        if (choice.logprobs !== undefined && choice.logprobs !== null) size += sizeOf(choice.logprobs, 0);
      }
      if (size > maxChars) {
        throw new StreamProtocolError(
          'answer_too_large',
          `the upstream answer is larger than maxAnswerChars (${maxChars} characters of text, reasoning, tool calls and log probabilities); the upstream request was aborted`,
        );
      }
    },
  };
}
