/** The bounds and lifetimes every {@link StreamLog} implementation takes. All are optional. */
export interface StreamLogConfig {
  /** How long a finished stream stays readable, in ms. Default 600 000 (10 min); at most 86 400 000 (24 h). */
  readonly retentionMs?: number;
  /**
   * How long a running stream stays in the log with no sign of life from its producer (no append, no lease renewal),
   * in ms. Default 600 000 (10 min). The sliding expiry of a stream whose producer forgot to end it.
   */
  readonly activeTtlMs?: number;
  /** The most bytes (UTF-16 code units of the values) one stream may log; past it the rest is not logged. Default 8 MiB. */
  readonly maxStreamBytes?: number;
  /** The most values one stream may log; past it the rest is not logged. Default 50 000. */
  readonly maxStreamEntries?: number;
}
