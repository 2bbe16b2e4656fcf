import type { StreamOutcome } from './StreamOutcome.js';

/**
 * One item a {@link StreamLog.read} yields: a value at its position, or the terminal entry (always the last item).
 *
 * Positions are dense and start at `0`: the n-th value appended is at position n - 1. They are what the NDJSON
 * line's `index` and the SSE event's `id:` carry, so `?after=<index>` and `Last-Event-ID` resume after them.
 */
export type StreamLogRecord =
  | {
      /** A value. */
      readonly kind: 'value';
      /** Its position: dense, from 0. */
      readonly position: number;
      /** The value as the producer appended it. */
      readonly data: string;
    }
  | {
      /** The terminal entry: the last record of a read. */
      readonly kind: 'end';
      /** How the stream ended. */
      readonly outcome: StreamOutcome;
      /** The position of the last value the producer appended (`-1`: none). */
      readonly lastPosition: number;
    };
