import type { ChatCompletionChunk } from '../core/schemas/index.js';
import { sseMarbles, type TranscriptMarbles } from './sseMarbles.js';
import type { TranscriptConfig } from './transcriptFrames.js';

/**
 * The decoded `ChatCompletionChunk`s of a transcript as marbles: what `parseSse()` + `decodeChunk()` emit for it,
 * one per frame of virtual time, then `|` (the `[DONE]` frame completes, at its own frame).
 *
 * ## Example
 * ```ts
 * testScheduler.run(({ cold, expectObservable }) => {
 *   const { marbles, values } = chunkMarbles('content: 你好', { dialect: 'moonshot' });
 *   expectObservable(cold(marbles, values).pipe(accumulateDeltas(), last(), map((c) => c.choices[0]?.message.content)))
 *     .toBe('---(a|)', { a: '你好' });
 * });
 * ```
 *
 * @param transcript - One item per line, see `transcriptFrames`.
 * @param config - Dialect, model, usage and ending.
 * @returns `{ marbles, values }` with chunk objects as values.
 */
export function chunkMarbles(
  transcript: string,
  config: TranscriptConfig = {},
): TranscriptMarbles<ChatCompletionChunk> {
  const sse = sseMarbles(transcript, config);
  const values: Record<string, ChatCompletionChunk> = {};
  let marbles = '';
  for (const key of sse.marbles) {
    const frame = sse.values[key];
    if (frame === undefined) marbles += key;
    else if (frame === 'data: [DONE]\n\n') marbles += '|';
    else {
      values[key] = JSON.parse(frame.slice('data: '.length)) as ChatCompletionChunk;
      marbles += key;
    }
  }
  return { marbles: marbles.replace(/\|\|$/, '|'), values };
}
