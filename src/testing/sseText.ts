import { transcriptFrames, type TranscriptConfig } from './transcriptFrames.js';

/**
 * The SSE text a provider would send for a transcript: feed it to `parseSse` in a test.
 *
 * ## Example
 * ```ts
 * const text = sseText('content: 你好\ncontent: 🌏', { dialect: 'moonshot' });
 * of(text).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last()); // content "你好🌏"
 * ```
 *
 * @param transcript - One item per line (`reasoning:`, `content:`, `tool:`, `args:`, `finish:`), see `transcriptFrames`.
 * @param config - Dialect, model, usage and ending.
 * @returns The whole stream as one string.
 */
export function sseText(transcript: string, config: TranscriptConfig = {}): string {
  return transcriptFrames(transcript, config).join('');
}
