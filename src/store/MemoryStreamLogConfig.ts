import type { StreamLogConfig } from './StreamLogConfig.js';

/** Options of `createMemoryStreamLog`: the common bounds and lifetimes, and how many streams it holds. */
export interface MemoryStreamLogConfig extends StreamLogConfig {
  /**
   * The most streams held at once (running and retained). Opening one more drops the oldest finished stream, or when
   * every stream is running the oldest one (its readers get `stream_truncated`). Default 10 000.
   */
  readonly maxStreams?: number;
  /**
   * The most bytes (UTF-16 code units of the values) all streams together may log. A value that would pass it first
   * drops the oldest finished streams; when only running streams are left, the rest of the appending stream is not
   * logged (its readers get `stream_truncated` there, as past `maxStreamBytes`). Default 64 MiB.
   */
  readonly maxTotalBytes?: number;
}
