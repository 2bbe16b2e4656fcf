import { ConfigError } from '../core/errors.js';
import { transcriptFrames, type TranscriptConfig } from './transcriptFrames.js';

/** A marble diagram and its values, for `cold(marbles, values)` / `hot(marbles, values)` of `TestScheduler`. */
export interface TranscriptMarbles<T> {
  /** The marble diagram: one letter per frame, then `|` unless the transcript is cut. */
  marbles: string;
  /** The value of each letter. */
  values: Record<string, T>;
}

const KEYS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * The SSE frames of a transcript as marbles: one frame per frame of virtual time, then `|` (no `|` when
 * `done: false`, so the source stays open as a stalled provider does).
 *
 * ## Example
 * ```ts
 * testScheduler.run(({ cold, expectObservable }) => {
 *   const { marbles, values } = sseMarbles('content: 你好');
 *   const source = cold(marbles, values); // 'abcd|' : role, 你好, finish, [DONE]
 *   expectObservable(source.pipe(parseSse(), decodeChunk(), map((c) => c.choices[0]?.delta?.content)))
 *     .toBe('abc|', { a: '', b: '你好', c: '' });
 * });
 * ```
 *
 * @param transcript - One item per line, see `transcriptFrames`.
 * @param config - Dialect, model, usage and ending.
 * @returns `{ marbles, values }` with the SSE frames as string values.
 * @throws ConfigError beyond 62 frames (marbles run out of letters).
 */
export function sseMarbles(transcript: string, config: TranscriptConfig = {}): TranscriptMarbles<string> {
  const frames = transcriptFrames(transcript, config);
  if (frames.length > KEYS.length)
    throw new ConfigError(`sseMarbles: at most ${KEYS.length} frames, got ${frames.length}; shorten the transcript.`);
  const values: Record<string, string> = {};
  frames.forEach((frame, i) => (values[KEYS[i] as string] = frame));
  return { marbles: KEYS.slice(0, frames.length) + (config.done === false ? '' : '|'), values };
}
