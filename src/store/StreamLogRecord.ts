import type { StreamOutcome } from './StreamOutcome.js';

/**
 * One item a {@link StreamLog.read} yields: a value at its position, or the terminal entry (always the last item).
 *
 * Positions are dense and start at `0`: the n-th value appended is at position n - 1. They are what the NDJSON
 * line's `index` and the SSE event's `id:` carry, so `?after=<index>` and `Last-Event-ID` resume after them.
 */
export type StreamLogRecord =
  | { readonly kind: 'value'; readonly position: number; readonly data: string }
  | { readonly kind: 'end'; readonly outcome: StreamOutcome; readonly lastPosition: number };
