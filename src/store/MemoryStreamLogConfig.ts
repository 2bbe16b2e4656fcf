import type { StreamLogConfig } from './StreamLogConfig.js';

/** Options of `createMemoryStreamLog`: the common bounds and lifetimes, and how many streams it holds. */
export interface MemoryStreamLogConfig extends StreamLogConfig {
  /**
   * The most streams held at once (running and retained). Opening one more drops the oldest finished stream, or when
   * every stream is running the oldest one (its readers get `stream_truncated`). Default 10 000.
   */
  readonly maxStreams?: number;
}
