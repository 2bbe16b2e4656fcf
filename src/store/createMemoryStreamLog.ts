import { createLocalStreamLog } from './createLocalStreamLog.js';
import type { MemoryStreamLogConfig } from './MemoryStreamLogConfig.js';
import type { StreamLog } from './StreamLog.js';

/**
 * The in-memory {@link StreamLog}: one process, the default. Streams are resumable within this process only (its
 * `health()` is always `'local'`). Bounded: per stream by `maxStreamBytes`/`maxStreamEntries` (past them the rest is
 * not logged and a reader reaching the gap gets `stream_truncated`), in all by `maxStreams` and `maxTotalBytes` (64 MiB); a finished stream is
 * dropped after `retentionMs`, a running one whose producer shows no life for `activeTtlMs` ends as `producer_lost`.
 * Its timers are unref'd (they never hold the process open) and cleared by `close()`.
 *
 * ```ts
 * const log = createMemoryStreamLog({ retentionMs: 60_000 });
 * const producer = await log.open(id, { ownerKeyHash, wire: 'sse' });
 * producer.append(JSON.stringify(chunk)); // position 0
 * await producer.end({ kind: 'complete' });
 * for await (const record of log.read(id, { after: -1 })) …
 * ```
 * @param config - Bounds and lifetimes.
 * @throws ConfigError for a bound that is not a positive whole number, or a retention over 24 h.
 */
export function createMemoryStreamLog(config: MemoryStreamLogConfig = {}): StreamLog {
  const { openLocal: _openLocal, has: _has, countDegraded: _d, countError: _e, countProducerLost: _p, ...log } = createLocalStreamLog(config);
  return log;
}
