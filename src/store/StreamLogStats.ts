/** Counters of a {@link StreamLog}, for metrics. Monotonic since the log was created. */
export interface StreamLogStats {
  /** Streams opened. */
  readonly opened: number;
  /** Streams opened local-only, or turned local-only while running (the store was down, its queue full, or the cap hit). */
  readonly degraded: number;
  /** Store commands that failed or timed out (0 for an in-memory log). */
  readonly errors: number;
  /** Streams ended by a reader as `producer_lost`. */
  readonly producersLost: number;
}
