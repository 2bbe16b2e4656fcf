import type { StreamOutcomeKind } from './StreamOutcome.js';

/**
 * What the producer says about a stream when it opens it: the data ownership checks and the resume endpoint need.
 * Kept in the log beside the entries, with the same lifetime (sliding while running, the retention after the end).
 */
export interface StreamMetaInit {
  /**
   * A hash of the key that started the stream (never the key itself): only a request with the same key hash may
   * resume or cancel it. At most 128 characters.
   */
  readonly ownerKeyHash: string;
  /** The wire the stream is served on (`'sse'`, `'ndjson'`), so that a resume writes the same frames. At most 32 characters. */
  readonly wire: string;
}

/** A logged stream's metadata, as {@link StreamLog.meta} answers it. */
export interface StreamMeta extends StreamMetaInit {
  /** The stream's id. */
  readonly id: string;
  /** When the producer opened it, in epoch milliseconds (the producer's clock). */
  readonly createdAt: number;
  /** `'running'` until the terminal entry is written, then the outcome's kind. */
  readonly state: 'running' | StreamOutcomeKind;
  /**
   * The position of the last value the log holds, `-1` when it holds none. A running stream's value may already be
   * behind the producer (writes are behind the client).
   */
  readonly lastPosition: number;
  /**
   * The producer's fencing epoch: `1` when opened, raised when a reader declares the producer lost (so a late
   * write of that producer is refused).
   */
  readonly epoch: number;
  /**
   * `false` when the log does not hold the whole stream (it grew past the per-stream cap, or the shared store could
   * not be written in time): a reader gets the values up to the gap, then a `stream_truncated` error.
   */
  readonly complete: boolean;
}
