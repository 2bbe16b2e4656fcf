import { ConfigError, StreamLogError } from '../core/errors.js';
import { checkStreamOpen, isStreamId } from './checkStreamOpen.js';
import { createLogValues, type LogValues } from './createLogValues.js';
import type { MemoryStreamLogConfig } from './MemoryStreamLogConfig.js';
import { resolveStreamLogConfig } from './resolveStreamLogConfig.js';
import type { StreamLog } from './StreamLog.js';
import type { StreamLogHealth } from './StreamLogHealth.js';
import type { StreamLogRecord } from './StreamLogRecord.js';
import type { StreamLogStats } from './StreamLogStats.js';
import type { StreamMeta, StreamMetaInit } from './StreamMeta.js';
import type { StreamOpenConfig } from './StreamOpenConfig.js';
import type { StreamOutcome } from './StreamOutcome.js';
import type { StreamProducer, StreamStopReason } from './StreamProducer.js';
import type { StreamReadConfig } from './StreamReadConfig.js';

/** What a shared store hangs on a local producer (the Redis log's write-behind). */
export interface LocalStreamHooks {
  /** Where the stream is resumable at open. */
  readonly resumability: StreamLogHealth;
  /** Called with every value the producer appends (logged locally or not), synchronously: must not block. */
  onAppend?(position: number, data: string): void;
  /** Called once by `end`, after the local terminal entry: the producer's `end` resolves when it settles. */
  onEnd?(outcome: StreamOutcome, lastPosition: number): Promise<void>;
}

/** A producer of the local log, with the handles a shared store drives. @internal */
export interface LocalStreamProducer extends StreamProducer {
  /** Whether a reader on another instance is attached (the shared store says so): it counts as attached. */
  setRemotePresence(present: boolean): void;
  /** Fires the producer's signal with `reason` (a cancel that came through the shared store). */
  stop(reason: StreamStopReason): void;
  /** Turns the stream local-only (the shared store could not keep up, or is down). */
  degrade(): void;
}

/** The one-process log, with what a shared store built on it needs. @internal */
export interface LocalStreamLog extends StreamLog {
  /** `open` without the promise, with a shared store's hooks. */
  openLocal(id: string, meta: StreamMetaInit, config: StreamOpenConfig | undefined, hooks: LocalStreamHooks): LocalStreamProducer;
  /** True while this process holds the stream (running or retained). */
  has(id: string): boolean;
  /** Counts a stream that turned local-only after it opened (the shared store's own degradations). */
  countDegraded(): void;
  /** Counts a failed store command. */
  countError(): void;
  /** Counts a producer declared lost by a reader. */
  countProducerLost(): void;
}

interface LocalStream {
  readonly id: string;
  readonly meta: StreamMetaInit;
  readonly createdAt: number;
  /** The logged values, joined in segments (`createLogValues`): one heap object per 64 values, not a rope each. */
  readonly values: LogValues;
  bytes: number;
  /** Values appended (logged or not): the next position. */
  appended: number;
  /** A value was not logged (cap, eviction): readers stop at `values.length`. */
  truncated: boolean;
  outcome: StreamOutcome | undefined;
  lastActivity: number;
  timer: NodeJS.Timeout | undefined;
  evicted: boolean;
  /** The readers waiting for the next entry; made by the first reader that waits (most streams never have one). */
  wakers: Set<() => void> | undefined;
  /** The producer's presence count: its own clients and this process's readers. */
  attached: number;
  /** Called when `attached` changes. */
  onPresence: (() => void) | undefined;
  /** The producer's stop (a cancel). */
  stop: ((reason: StreamStopReason) => void) | undefined;
}

const unref = (timer: NodeJS.Timeout): NodeJS.Timeout => timer.unref();

/**
 * The one-process stream log, with the handles `createRedisStreamLog` drives (`openLocal`, `has`). Applications use
 * `createMemoryStreamLog`. @internal
 */
export function createLocalStreamLog(config: MemoryStreamLogConfig = {}): LocalStreamLog {
  const settings = resolveStreamLogConfig(config);
  const maxStreams = config.maxStreams ?? 10_000;
  if (!Number.isSafeInteger(maxStreams) || maxStreams <= 0) throw new ConfigError(`stream log: \`maxStreams\` must be a whole number ≥ 1; got ${String(maxStreams)}`);
  const maxTotalBytes = config.maxTotalBytes ?? 64 * 1024 * 1024;
  if (!Number.isSafeInteger(maxTotalBytes) || maxTotalBytes <= 0) {
    throw new ConfigError(`stream log: \`maxTotalBytes\` must be a whole number ≥ 1; got ${String(maxTotalBytes)}`);
  }
  let totalBytes = 0;
  const streams = new Map<string, LocalStream>();
  const stats = { opened: 0, degraded: 0, errors: 0, producersLost: 0 };
  let closed = false;

  const wake = (stream: LocalStream): void => {
    if (stream.wakers === undefined || stream.wakers.size === 0) return; // no reader waiting (the producer's own client reads live)
    const wakers = [...stream.wakers];
    stream.wakers.clear();
    for (const waker of wakers) waker();
  };
  const drop = (stream: LocalStream): void => {
    if (stream.timer !== undefined) clearTimeout(stream.timer);
    stream.timer = undefined;
    if (!stream.evicted) totalBytes -= stream.bytes; // its values stay readable to a reader already in them
    stream.evicted = true;
    if (streams.get(stream.id) === stream) streams.delete(stream.id);
    wake(stream);
    stream.onPresence?.(); // a producer whose stream is gone: abandoned once nobody is attached, its timer cleared on close
  };
  const finish = (stream: LocalStream, outcome: StreamOutcome): void => {
    stream.outcome = outcome;
    if (stream.timer !== undefined) clearTimeout(stream.timer);
    stream.timer = closed ? undefined : unref(setTimeout(() => drop(stream), settings.retentionMs));
    wake(stream);
    stream.onPresence?.();
  };
  // The sliding expiry of a running stream: no sign of life for activeTtlMs → its producer is lost.
  const armIdle = (stream: LocalStream): void => {
    if (closed) return;
    const due = stream.lastActivity + settings.activeTtlMs - Date.now();
    stream.timer = unref(
      setTimeout(
        () => {
          stream.timer = undefined;
          if (stream.outcome !== undefined || stream.evicted) return;
          if (Date.now() - stream.lastActivity >= settings.activeTtlMs) {
            stats.producersLost++;
            finish(stream, { kind: 'producer_lost' });
          } else armIdle(stream);
        },
        Math.max(0, due),
      ),
    );
  };
  const makeRoom = (): void => {
    if (streams.size < maxStreams) return;
    let victim: LocalStream | undefined;
    for (const stream of streams.values()) {
      if (stream.outcome !== undefined) {
        victim = stream;
        break;
      }
      victim ??= stream;
    }
    if (victim !== undefined) drop(victim);
  };
  /** Whether `size` more bytes fit in all, after dropping the oldest finished streams (never a running one). */
  const roomFor = (size: number): boolean => {
    if (totalBytes + size <= maxTotalBytes) return true;
    for (const stream of streams.values()) {
      if (stream.outcome === undefined) continue;
      drop(stream);
      if (totalBytes + size <= maxTotalBytes) return true;
    }
    return false;
  };

  const openLocal = (id: string, meta: StreamMetaInit, openConfig: StreamOpenConfig | undefined, hooks: LocalStreamHooks): LocalStreamProducer => {
    checkStreamOpen(id, meta, openConfig);
    if (streams.has(id)) throw new StreamLogError('stream_exists', id, `stream log: the stream ${id} is already in the log; open each stream once, with a new random id`);
    makeRoom();
    const now = Date.now();
    const stream: LocalStream = {
      id,
      meta: { ownerKeyHash: meta.ownerKeyHash, wire: meta.wire },
      createdAt: now,
      values: createLogValues(),
      bytes: 0,
      appended: 0,
      truncated: false,
      outcome: undefined,
      lastActivity: now,
      timer: undefined,
      evicted: false,
      wakers: undefined,
      attached: 0,
      onPresence: undefined,
      stop: undefined,
    };
    if (!closed) streams.set(id, stream);
    else stream.evicted = true;
    stats.opened++;
    armIdle(stream);

    const abandonAfterMs = openConfig?.abandonAfterMs;
    const controller = new AbortController();
    let remotePresent = false;
    let abandonTimer: NodeJS.Timeout | undefined;
    let ended: Promise<void> | undefined;

    const stop = (reason: StreamStopReason): void => {
      if (producer.stopReason !== undefined || stream.outcome !== undefined) return;
      producer.stopReason = reason;
      if (abandonTimer !== undefined) clearTimeout(abandonTimer);
      abandonTimer = undefined;
      controller.abort(reason);
    };
    const presence = (): void => {
      const someone = stream.attached > 0 || remotePresent;
      // A stream the cap dropped still runs: with nobody attached it is abandoned as any other (no reader can come back).
      if (someone || stream.outcome !== undefined || producer.stopReason !== undefined || abandonAfterMs === undefined || closed) {
        if (abandonTimer !== undefined) clearTimeout(abandonTimer);
        abandonTimer = undefined;
        return;
      }
      abandonTimer ??= unref(setTimeout(() => stop('abandoned'), abandonAfterMs));
    };
    // `resumability` and `stopReason` are data properties set where they change (`degrade`, `stop`): an object literal
    // with a getter is a dictionary-mode object in V8 (~0.8 KB more for every stream the process holds).
    const producer: { -readonly [K in keyof LocalStreamProducer]: LocalStreamProducer[K] } = {
      id,
      resumability: hooks.resumability,
      signal: controller.signal,
      stopReason: undefined,
      append(data: string): number {
        if (ended !== undefined) throw new ConfigError(`stream log: append after end on stream ${id}; end a stream once, after its last value`);
        if (typeof data !== 'string') throw new ConfigError('stream log: append takes a string (a serialized value, e.g. JSON.stringify(chunk))');
        const position = stream.appended++;
        stream.lastActivity = Date.now();
        if (!stream.truncated && !stream.evicted) {
          if (stream.values.length < settings.maxStreamEntries && stream.bytes + data.length <= settings.maxStreamBytes && roomFor(data.length)) {
            stream.values.push(data);
            stream.bytes += data.length;
            totalBytes += data.length;
          } else {
            stream.truncated = true;
            if (producer.resumability === 'shared') producer.degrade();
            else stats.degraded++; // a local stream past its cap: counted all the same
          }
          wake(stream);
        }
        hooks.onAppend?.(position, data);
        return position;
      },
      attachClient(): () => void {
        stream.attached++;
        presence();
        let attached = true;
        return () => {
          if (!attached) return;
          attached = false;
          stream.attached--;
          presence();
        };
      },
      end(outcome: StreamOutcome): Promise<void> {
        if (ended !== undefined) return ended;
        if (abandonTimer !== undefined) clearTimeout(abandonTimer);
        abandonTimer = undefined;
        if (stream.outcome === undefined && !stream.evicted) finish(stream, outcome);
        const lastPosition = stream.appended - 1;
        ended = hooks.onEnd === undefined ? Promise.resolve() : hooks.onEnd(outcome, lastPosition).catch(() => undefined);
        return ended;
      },
      setRemotePresence(present: boolean): void {
        remotePresent = present;
        presence();
      },
      stop,
      degrade(): void {
        if (producer.resumability === 'local') return;
        producer.resumability = 'local';
        stats.degraded++;
      },
    };
    stream.onPresence = presence;
    stream.stop = stop;
    presence();
    return producer;
  };

  async function* read(id: string, readConfig: StreamReadConfig = {}): AsyncGenerator<StreamLogRecord, void, undefined> {
    const { after = -1, signal } = readConfig;
    if (!Number.isSafeInteger(after) || after < -1) throw new ConfigError(`stream log: \`after\` is the last position the reader has (-1: none); got ${String(after)}`);
    const stream = isStreamId(id) ? streams.get(id) : undefined;
    if (stream === undefined || closed) throw new StreamLogError('stream_not_found', id, 'no such stream (unknown, or past its retention)');
    stream.attached++;
    stream.onPresence?.();
    let position = after + 1;
    const stopped = (): boolean => signal?.aborted === true || closed;
    try {
      for (;;) {
        if (stopped()) return;
        while (position < stream.values.length) {
          yield { kind: 'value', position, data: stream.values.at(position) };
          position++;
          if (stopped()) return;
        }
        if (stream.truncated || (stream.evicted && stream.outcome === undefined)) {
          if (position < stream.appended || stream.outcome === undefined) {
            throw new StreamLogError('stream_truncated', id, `the log holds this stream only up to position ${stream.values.length - 1}`, {
              position: stream.values.length - 1,
            });
          }
        }
        if (stream.outcome !== undefined) {
          yield { kind: 'end', outcome: stream.outcome, lastPosition: stream.appended - 1 };
          return;
        }
        await new Promise<void>((resolve) => {
          const done = (): void => {
            signal?.removeEventListener('abort', done);
            stream.wakers?.delete(done);
            resolve();
          };
          (stream.wakers ??= new Set()).add(done);
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    } finally {
      stream.attached--;
      stream.onPresence?.();
    }
  }

  const metaOf = (stream: LocalStream): StreamMeta => ({
    id: stream.id,
    ownerKeyHash: stream.meta.ownerKeyHash,
    wire: stream.meta.wire,
    createdAt: stream.createdAt,
    state: stream.outcome === undefined ? 'running' : stream.outcome.kind,
    lastPosition: stream.values.length - 1,
    epoch: 1,
    complete: !stream.truncated && !stream.evicted,
  });

  return {
    openLocal,
    open: (id, meta, openConfig) => {
      try {
        return Promise.resolve(openLocal(id, meta, openConfig, { resumability: 'local' }));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
    read,
    has: (id) => streams.has(id),
    meta: (id) => {
      const stream = streams.get(id);
      return Promise.resolve(stream === undefined || closed ? undefined : metaOf(stream));
    },
    cancel: (id) => {
      const stream = streams.get(id);
      if (stream === undefined || stream.outcome !== undefined || closed) return Promise.resolve(false);
      stream.stop?.('cancelled');
      return Promise.resolve(true);
    },
    health: () => 'local',
    stats: (): StreamLogStats => ({ ...stats }),
    countDegraded: () => {
      stats.degraded++;
    },
    countError: () => {
      stats.errors++;
    },
    countProducerLost: () => {
      stats.producersLost++;
    },
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      for (const stream of [...streams.values()]) drop(stream);
      return Promise.resolve();
    },
  };
}
