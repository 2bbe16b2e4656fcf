/** Per-stream options of {@link StreamLog.open}. */
export interface StreamOpenConfig {
  /**
   * How long the stream may run with no reader attached (neither the producer's own client nor any `read`, on any
   * instance) before the producer's signal fires with `'abandoned'`. `0`: as soon as the last one leaves.
   * `undefined` (the default): never abandoned.
   */
  readonly abandonAfterMs?: number;
}
