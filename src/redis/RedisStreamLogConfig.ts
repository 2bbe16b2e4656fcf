import type { StreamLogConfig } from '../store/StreamLogConfig.js';

/** Options of `createRedisStreamLog`: where Redis is, and the lease, queue and timeout settings. */
export interface RedisStreamLogConfig extends StreamLogConfig {
  /** The Redis URL (`redis://[[user]:password@]host:port[/db]`, `rediss://` for TLS). Required. */
  readonly url: string;
  /** Prefix of every key and channel. Default `'cf:'` (keys `cf:{<id>}:meta`, `:log`, `:lease`, `:seen`). */
  readonly keyPrefix?: string;
  /**
   * How long a producer's lease lasts, in ms: a producer that stops renewing it (its process died) is declared
   * `producer_lost` by a reader within about this time. Renewed every third of it. Default 5000; at least 300.
   */
  readonly leaseMs?: number;
  /** The timeout of one Redis command, in ms (a command past it counts as an error). Default 500. */
  readonly commandTimeoutMs?: number;
  /** The most values waiting to be written, across all streams; past it a stream turns local-only. Default 10 000. */
  readonly maxQueuedValues?: number;
  /** How long values wait to be written together, in ms (at most 64 go in one write). Default 10. */
  readonly flushDelayMs?: number;
  /**
   * The most connections held by readers following streams with `XREAD BLOCK` (one each, reused); readers beyond
   * it poll every 250 ms. Default 32.
   */
  readonly maxBlockingReaders?: number;
  /** Called with every Redis error (for logs); never with a secret of the URL. Default: ignored. */
  readonly onError?: (error: Error) => void;
}
