import type { StreamLogHealth } from './StreamLogHealth.js';
import type { StreamLogRecord } from './StreamLogRecord.js';
import type { StreamLogStats } from './StreamLogStats.js';
import type { StreamMeta, StreamMetaInit } from './StreamMeta.js';
import type { StreamOpenConfig } from './StreamOpenConfig.js';
import type { StreamProducer } from './StreamProducer.js';
import type { StreamReadConfig } from './StreamReadConfig.js';

/**
 * The stream log: the port that makes a streamed answer resumable. A producer appends the answer's values as it
 * serves them; any reader (the same process, or with a shared store any instance) reads them back after a position,
 * catching up and then following until the terminal entry. Two implementations: `createMemoryStreamLog` (the
 * default, one process) and `createRedisStreamLog` (`chatflux/redis`, every instance).
 *
 * Lifetimes: a running stream's data lives while the producer shows life (sliding expiry); a finished one lives for
 * the retention, then `meta` answers `undefined` and `read` throws `stream_not_found`.
 *
 * ```text
 * producer:  open ── append(0) ── append(1) ── … ── end({kind:'complete'})
 * reader:               read({after: 0}) ──► value 1 ─► … ─► end   (ends only at the terminal entry)
 * ```
 */
export interface StreamLog {
  /**
   * Opens a new stream as its producer. Resolves quickly even when the shared store is down (the producer is then
   * local-only); never rejects for store trouble.
   * @param id The stream's id: 1–64 characters of `[A-Za-z0-9_-]` (128 random bits, base64url, in practice).
   * @throws ChatfluxError `invalid_config` for a malformed id or meta; StreamLogError `stream_exists` when the id
   *   is already in the log.
   */
  open(id: string, meta: StreamMetaInit, config?: StreamOpenConfig): Promise<StreamProducer>;
  /**
   * Reads a stream after a position: the logged values first, then the live ones as they are appended, then the
   * terminal entry, after which the iteration ends. It never hangs on a dead producer: when the producer's lease
   * runs out, the reader writes a `producer_lost` terminal entry (fencing the producer's late writes) and ends with it.
   * While iterated, the reader counts as attached (the stream is not abandoned).
   * @throws StreamLogError `stream_not_found` (unknown or past its retention — also for a malformed id),
   *   `stream_unavailable` (the shared store is unreachable and the stream is not in this process: retry later),
   *   `stream_truncated` (the log does not hold the values after some position: past the cap, or written while the
   *   store was down; thrown when the reader reaches that gap).
   */
  read(id: string, config?: StreamReadConfig): AsyncIterable<StreamLogRecord>;
  /**
   * The stream's metadata (owner, wire, state, last position), or `undefined` when the log does not know the id
   * (never existed, malformed, or past its retention).
   * @throws StreamLogError `stream_unavailable` when the shared store is unreachable and the stream is not in this process.
   */
  meta(id: string): Promise<StreamMeta | undefined>;
  /**
   * Asks the stream's producer, wherever it runs, to stop: its signal fires with `'cancelled'` and it ends the
   * stream as `cancelled`. Resolves `true` when the stream was running (the request is recorded), `false` when it
   * is unknown or already ended.
   * @throws StreamLogError `stream_unavailable` when the shared store is unreachable and the stream is not in this process.
   */
  cancel(id: string): Promise<boolean>;
  /** Whether a stream opened now would be resumable everywhere (`'shared'`) or in this process only (`'local'`). */
  health(): StreamLogHealth;
  /** Counters for metrics. */
  stats(): StreamLogStats;
  /**
   * Releases everything: the store's connections, every timer, the readers (their iterations end). Streams still
   * running are not ended (their producers keep serving their clients; with a shared store, readers elsewhere see
   * `producer_lost` once the lease runs out). Idempotent.
   */
  close(): Promise<void>;
}
