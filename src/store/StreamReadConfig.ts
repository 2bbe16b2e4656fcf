/** Options of {@link StreamLog.read}. */
export interface StreamReadConfig {
  /**
   * The position the reader already has: the read yields the values after it. `-1` (the default) reads from the
   * start. `Last-Event-ID` and `?after=` give it.
   */
  readonly after?: number;
  /** Stops the read: the iteration ends (returns) without an error, and the reader's presence ends. */
  readonly signal?: AbortSignal;
}
