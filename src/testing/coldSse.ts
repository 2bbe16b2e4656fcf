import { concatMap, from, map, of, timer, type Observable } from 'rxjs';
import { transcriptFrames, type TranscriptConfig } from './transcriptFrames.js';

/** Options of {@link coldSse}. */
export interface ColdSseConfig extends TranscriptConfig {
  /** Time between two frames, in ms (virtual ms inside `TestScheduler.run`); 0 (default) emits synchronously. */
  frameTime?: number;
  /** Cut the text into pieces of this many bytes (UTF-8), as a network would, inside characters too. */
  pieceSize?: number;
}

/**
 * A cold Observable of the SSE bytes of a transcript, as a provider's body would deliver them.
 *
 * Each subscription replays the frames; with `frameTime` they are spaced in time (virtual time inside
 * `TestScheduler.run`), with `pieceSize` each frame is cut into byte pieces (also inside multi-byte characters).
 *
 * ## Example
 * ```ts
 * coldSse('content: 你好\ncontent: 🌏', { pieceSize: 1 }).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last());
 * ```
 *
 * @param transcript - One item per line, see `transcriptFrames`.
 * @param config - Dialect, timing and chunking.
 * @returns A cold `Observable<Uint8Array>`.
 */
export function coldSse(transcript: string, config: ColdSseConfig = {}): Observable<Uint8Array> {
  const encoder = new TextEncoder();
  const frames = transcriptFrames(transcript, config);
  const size = config.pieceSize ?? Infinity;
  const pieces = (frame: string): Uint8Array[] => {
    const bytes = encoder.encode(frame);
    const out: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, Math.min(bytes.length, i + size)));
    return out;
  };
  const frameTime = config.frameTime ?? 0;
  return from(frames).pipe(
    concatMap((frame, i) => (i === 0 || frameTime === 0 ? of(frame) : timer(frameTime).pipe(map(() => frame)))),
    concatMap((frame) => from(pieces(frame))),
  );
}
