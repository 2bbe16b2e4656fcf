import { randomBytes } from 'node:crypto';
import { ConfigError, StreamLogError } from '../core/errors.js';
import { checkStreamOpen, isStreamId } from '../store/checkStreamOpen.js';
import { createLocalStreamLog, type LocalStreamProducer } from '../store/createLocalStreamLog.js';
import { resolveStreamLogConfig } from '../store/resolveStreamLogConfig.js';
import type { StreamLog } from '../store/StreamLog.js';
import type { StreamLogRecord } from '../store/StreamLogRecord.js';
import type { StreamMeta, StreamMetaInit } from '../store/StreamMeta.js';
import type { StreamOpenConfig } from '../store/StreamOpenConfig.js';
import type { StreamOutcome, StreamOutcomeKind } from '../store/StreamOutcome.js';
import type { StreamProducer } from '../store/StreamProducer.js';
import type { StreamReadConfig } from '../store/StreamReadConfig.js';
import type { RedisStreamLogConfig } from './RedisStreamLogConfig.js';
import { STREAM_LOG_SCRIPTS } from './STREAM_LOG_SCRIPTS.js';
import { connectRedis, type RedisClient, type RedisReply } from './connectRedis.js';
import { resolveRedisStoreConfig } from './resolveRedisStoreConfig.js';
import { within } from './within.js';

type Client = RedisClient;
type Reply = RedisReply;

const BATCH = 64;
const POLL_MS = 250;
const OUTCOME_KINDS = new Set<string>(['complete', 'error', 'cancelled', 'abandoned', 'producer_lost']);

const whole = (name: string, value: number | undefined, fallback: number, min: number): number => {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) throw new ConfigError(`createRedisStreamLog: \`${name}\` must be a whole number ≥ ${min}; got ${String(value)}`);
  return value;
};
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** The per-stream write-behind state of a producer. */
interface Writer {
  readonly id: string;
  readonly local: LocalStreamProducer;
  epoch: string;
  /** Values waiting: the first one's position, then the values. */
  firstPending: number;
  readonly pending: string[];
  inFlight: boolean;
  /** New values are queued for Redis (false once the stream turned local-only: the cap, a full queue, a failure). */
  accepting: boolean;
  /** Stop writing to Redis at all (fenced, gone, or a write failed). */
  stopped: boolean;
  /** The last position Redis holds a value of (`-1`: none), for the gap. */
  written: number;
  /** The gap to record (the stream turned local-only after this position), when one is still to be written. */
  gap: number | undefined;
  flushTimer: NodeJS.Timeout | undefined;
  renewTimer: NodeJS.Timeout | undefined;
  lastWriteAt: number;
  /** Resolves when the queue is empty and nothing is in flight. */
  idle: Array<() => void>;
}

/**
 * The {@link StreamLog} on Redis (`chatflux/redis`): every instance with the same Redis can read, follow and cancel
 * every stream. Needs the optional peer dependency `redis` (node-redis 6), which only this entry point imports.
 *
 * How it works: values go to the producer's own client first and into an in-process copy (so a resume on the same
 * instance reads no Redis), then to Redis behind the client, through a bounded queue, in batches (`EVAL` of a Lua
 * append: fencing epoch, `XADD` with an explicit id so a retried write cannot duplicate, sliding `PEXPIRE` of every
 * key, the lease renewed, the cancel flag and the readers' presence returned). Readers elsewhere catch up with
 * `XRANGE` and follow with `XREAD BLOCK` on a bounded set of connections; one that finds the lease expired while the
 * stream runs ends it as `producer_lost` (raising the epoch, so the dead producer's late writes are refused). A
 * cancel sets a flag in the stream's meta and is published on the producer's process channel. No `MAXLEN`: the cap
 * per stream is the in-process one, after which the rest is not logged (readers get `stream_truncated`).
 *
 * When Redis is unreachable streams open local-only (`health()` says `'local'`), a stream whose writes fail or fall
 * behind turns local-only (counted in `stats().degraded`), and the client being served never waits; no offline
 * queue, short command timeouts, and reconnection in the background: new streams are shared again once Redis answers.
 *
 * ```ts
 * import { createRedisStreamLog } from 'chatflux/redis';
 * const log = createRedisStreamLog({ url: process.env.CHATFLUX_REDIS_URL!, retentionMs: 600_000 });
 * …
 * await log.close();
 * ```
 * @param config - The Redis URL, lifetimes, bounds and timeouts.
 * @throws ConfigError for a missing URL or a setting out of range.
 */
export function createRedisStreamLog(config: RedisStreamLogConfig): StreamLog {
  const { prefix } = resolveRedisStoreConfig('createRedisStreamLog', config, 500);
  const settings = resolveStreamLogConfig(config);
  const leaseMs = whole('leaseMs', config.leaseMs, 5000, 300);
  const commandTimeoutMs = whole('commandTimeoutMs', config.commandTimeoutMs, 500, 1);
  const maxQueuedValues = whole('maxQueuedValues', config.maxQueuedValues, 10_000, 1);
  const flushDelayMs = whole('flushDelayMs', config.flushDelayMs, 10, 0);
  const maxBlockingReaders = whole('maxBlockingReaders', config.maxBlockingReaders, 32, 0);
  const renewEveryMs = Math.max(100, Math.floor(leaseMs / 3));
  const blockMs = Math.max(100, Math.min(1000, Math.floor(leaseMs / 2)));
  const presenceMs = Math.max(leaseMs, 3 * blockMs);
  const onError = config.onError ?? ((): void => undefined);

  const local = createLocalStreamLog(settings);
  const instance = randomBytes(8).toString('hex');
  const channel = `${prefix}ctl:${instance}`;
  const key = (id: string, part: 'meta' | 'log' | 'lease' | 'seen'): string => `${prefix}{${id}}:${part}`;
  const writers = new Map<string, Writer>();
  let queued = 0;
  let closed = false;

  // After a failed command (a timeout: Redis hung or slow), new streams open local-only for a while instead of each
  // waiting out a command timeout before its first byte; commands already running go on.
  let suspectUntil = 0;
  const connection = connectRedis({
    url: config.url,
    commandTimeoutMs,
    maxReconnectDelayMs: 2000,
    onError,
    onCommandError: () => {
      local.countError();
      suspectUntil = Date.now() + Math.max(2000, 2 * commandTimeoutMs);
    },
  });
  const { client, newClient, connected, send, evalScript } = connection;
  const subscriber = newClient();
  void subscriber
    .connect()
    .then(() =>
      subscriber.subscribe(channel, (id: string) => {
        writers.get(id)?.local.stop('cancelled');
      }),
    )
    .catch((error: unknown) => onError(asError(error)));

  // ——— the producer side ———

  const settle = (writer: Writer): void => {
    if (writer.inFlight || (writer.pending.length > 0 && !writer.stopped)) return;
    const waiting = writer.idle.splice(0);
    for (const wake of waiting) wake();
  };
  const turnLocal = (writer: Writer): void => {
    if (writer.stopped) return;
    writer.stopped = true;
    writer.accepting = false;
    queued -= writer.pending.length;
    writer.pending.length = 0;
    writer.gap = writer.written;
    writer.local.degrade();
    writer.local.setRemotePresence(false); // no reader elsewhere can follow it now
    settle(writer);
  };
  const applyReply = (writer: Writer, reply: Reply): void => {
    const [status, cancel, seen] = Array.isArray(reply) ? reply : [];
    if (status === -1 || status === -2) {
      // gone (expired) or fenced (declared lost, or ended): never write again; this client goes on unharmed
      writer.gap = undefined;
      turnLocal(writer);
      writer.gap = undefined;
      return;
    }
    writer.lastWriteAt = Date.now();
    if (cancel === 1) writer.local.stop('cancelled');
    writer.local.setRemotePresence(seen === 1);
  };
  const appendArgs = (writer: Writer, first: number, values: readonly string[], gap: number | undefined): Array<string | number> => [
    writer.epoch,
    first,
    values.length === 0 ? '' : first + values.length - 1,
    values.length === 0 ? '' : JSON.stringify(values),
    settings.activeTtlMs,
    leaseMs,
    `${instance}:${writer.epoch}`,
    gap === undefined ? '' : gap,
  ];
  const flush = async (writer: Writer): Promise<void> => {
    if (writer.inFlight) return;
    if (writer.flushTimer !== undefined) clearTimeout(writer.flushTimer);
    writer.flushTimer = undefined;
    if (writer.stopped || writer.pending.length === 0) return settle(writer);
    writer.inFlight = true;
    const first = writer.firstPending;
    const values = writer.pending.splice(0, BATCH);
    writer.firstPending += values.length;
    queued -= values.length;
    const keys = [key(writer.id, 'meta'), key(writer.id, 'log'), key(writer.id, 'lease'), key(writer.id, 'seen')];
    // the last batch of a stream that turned local-only carries the gap: readers elsewhere stop there
    const gap = !writer.accepting && writer.pending.length === 0 ? writer.gap : undefined;
    try {
      let reply: Reply;
      try {
        reply = await evalScript(STREAM_LOG_SCRIPTS.append, keys, appendArgs(writer, first, values, gap));
      } catch {
        // once more, the same batch: its explicit id makes a write that did land a no-op
        if (!client.isReady || closed) throw new Error('Redis is down');
        reply = await evalScript(STREAM_LOG_SCRIPTS.append, keys, appendArgs(writer, first, values, gap));
      }
      if (!writer.stopped) writer.written = first + values.length - 1;
      if (gap !== undefined && writer.gap === gap) writer.gap = undefined;
      applyReply(writer, reply);
    } catch {
      turnLocal(writer);
    } finally {
      writer.inFlight = false;
    }
    if (writer.pending.length > 0 && !writer.stopped) void flush(writer);
    else settle(writer);
  };
  const scheduleFlush = (writer: Writer): void => {
    if (writer.pending.length >= BATCH) {
      void flush(writer);
      return;
    }
    writer.flushTimer ??= setTimeout(() => {
      writer.flushTimer = undefined;
      void flush(writer);
    }, flushDelayMs).unref();
  };
  const renew = async (writer: Writer): Promise<void> => {
    if (writer.inFlight || (!writer.accepting && writer.pending.length > 0)) return; // the last batch carries the gap
    if (writer.stopped) {
      if (writer.gap === undefined || !client.isReady) return;
    } else if (writer.gap === undefined && Date.now() - writer.lastWriteAt < renewEveryMs / 2) return;
    const gap = writer.gap;
    try {
      const reply = await evalScript(
        STREAM_LOG_SCRIPTS.append,
        [key(writer.id, 'meta'), key(writer.id, 'log'), key(writer.id, 'lease'), key(writer.id, 'seen')],
        appendArgs(writer, 0, [], gap),
      );
      if (gap !== undefined && writer.gap === gap) writer.gap = undefined; // recorded: readers elsewhere stop at it
      if (writer.stopped) {
        const [, cancel] = Array.isArray(reply) ? reply : [];
        if (cancel === 1) writer.local.stop('cancelled');
      } else applyReply(writer, reply);
    } catch {
      if (!writer.stopped) turnLocal(writer);
    }
  };
  const release = (writer: Writer): void => {
    if (writer.renewTimer !== undefined) clearInterval(writer.renewTimer);
    if (writer.flushTimer !== undefined) clearTimeout(writer.flushTimer);
    writer.renewTimer = undefined;
    writer.flushTimer = undefined;
    if (writers.get(writer.id) === writer) writers.delete(writer.id);
  };
  const drained = (writer: Writer): Promise<void> =>
    writer.inFlight || (writer.pending.length > 0 && !writer.stopped)
      ? new Promise((resolve) => {
          writer.idle.push(resolve);
          void flush(writer);
        })
      : Promise.resolve();
  const endRemote = async (writer: Writer, outcome: StreamOutcome, lastPosition: number): Promise<void> => {
    if (writer.renewTimer !== undefined) clearInterval(writer.renewTimer);
    writer.renewTimer = undefined;
    try {
      await drained(writer);
      if (!client.isReady || closed) return;
      await evalScript(STREAM_LOG_SCRIPTS.end, [key(writer.id, 'meta'), key(writer.id, 'log'), key(writer.id, 'lease')], [
        writer.epoch,
        lastPosition,
        JSON.stringify(outcome),
        settings.retentionMs,
        outcome.kind,
      ]);
    } catch {
      // the stream stays local-only; readers elsewhere see producer_lost once the lease runs out
    } finally {
      release(writer);
    }
  };

  const open = async (id: string, meta: StreamMetaInit, openConfig?: StreamOpenConfig): Promise<StreamProducer> => {
    if (closed) throw new ConfigError('createRedisStreamLog: open after close; open streams before closing the log');
    checkStreamOpen(id, meta, openConfig);
    await connected();
    const produceLocally = (shared: boolean): LocalStreamProducer => {
      const made: { writer?: Writer } = {}; // the hooks see the writer made below
      const producer = local.openLocal(id, meta, openConfig, {
        resumability: shared ? 'shared' : 'local',
        onAppend: (position, data) => {
          const { writer } = made;
          if (writer === undefined || !writer.accepting) return;
          if (producer.resumability === 'local' || queued >= maxQueuedValues) {
            // over the cap, or Redis is behind: what is queued is still written, the rest stays in this process
            writer.accepting = false;
            writer.gap = position - 1;
            producer.degrade();
            if (writer.pending.length > 0 || writer.inFlight) void flush(writer);
            else void renew(writer);
            return;
          }
          if (writer.pending.length === 0) writer.firstPending = position;
          writer.pending.push(data);
          queued++;
          scheduleFlush(writer);
        },
        onEnd: (outcome, lastPosition) => (made.writer === undefined ? Promise.resolve() : endRemote(made.writer, outcome, lastPosition)),
      });
      if (!shared) {
        local.countDegraded();
        return producer;
      }
      const started: Writer = {
        id,
        local: producer,
        epoch: '1',
        firstPending: 0,
        pending: [],
        inFlight: false,
        accepting: true,
        stopped: false,
        written: -1,
        gap: undefined,
        flushTimer: undefined,
        renewTimer: undefined,
        lastWriteAt: Date.now(),
        idle: [],
      };
      made.writer = started;
      writers.set(id, started);
      started.renewTimer = setInterval(() => void renew(started), renewEveryMs).unref();
      return producer;
    };
    if (local.has(id)) throw new StreamLogError('stream_exists', id, `stream log: the stream ${id} is already in the log; open each stream once, with a new random id`);
    if (!isStreamId(id)) return produceLocally(false); // throws the misuse error
    if (!client.isReady || Date.now() < suspectUntil) return produceLocally(false);
    let opened: Reply;
    try {
      opened = await evalScript(STREAM_LOG_SCRIPTS.open, [key(id, 'meta'), key(id, 'lease')], [
        meta.ownerKeyHash,
        meta.wire,
        Date.now(),
        instance,
        settings.activeTtlMs,
        leaseMs,
      ]);
    } catch {
      return produceLocally(false);
    }
    if (opened === 0) throw new StreamLogError('stream_exists', id, `stream log: the stream ${id} is already in the log; open each stream once, with a new random id`);
    return produceLocally(true);
  };

  // ——— the reader side ———

  const idle: Client[] = [];
  let blockingOpen = 0;
  const blockingClients = new Set<Client>();
  const takeBlocking = async (): Promise<Client | undefined> => {
    const ready = idle.pop();
    if (ready !== undefined) return ready;
    if (blockingOpen >= maxBlockingReaders) return undefined;
    blockingOpen++;
    const made = newClient();
    blockingClients.add(made);
    try {
      await made.connect();
      return made;
    } catch {
      blockingOpen--;
      blockingClients.delete(made);
      made.destroy();
      return undefined;
    }
  };
  const giveBack = (used: Client, healthy: boolean): void => {
    if (healthy && !closed && used.isReady) idle.push(used);
    else {
      blockingOpen--;
      blockingClients.delete(used);
      used.destroy();
    }
  };
  const unavailable = (id: string, cause?: unknown): StreamLogError =>
    new StreamLogError('stream_unavailable', id, 'the stream log (Redis) is unreachable; retry later', { retryAfterSeconds: 2, cause });

  const parseMeta = (id: string, reply: Reply): StreamMeta | undefined => {
    if (!Array.isArray(reply) || reply.length === 0) return undefined;
    const fields = new Map<string, string>();
    for (let at = 0; at + 1 < reply.length; at += 2) fields.set(String(reply[at]), String(reply[at + 1]));
    const state = fields.get('state') ?? 'running';
    const last = Number(fields.get('last') ?? -1);
    const gap = fields.get('gap');
    return {
      id,
      ownerKeyHash: fields.get('own') ?? '',
      wire: fields.get('wire') ?? '',
      createdAt: Number(fields.get('created') ?? 0),
      state: (OUTCOME_KINDS.has(state) ? state : 'running') as 'running' | StreamOutcomeKind,
      lastPosition: gap === undefined ? last : Math.min(last, Number(gap)),
      epoch: Number(fields.get('epoch') ?? 1),
      complete: gap === undefined,
    };
  };
  const metaOf = async (id: string): Promise<StreamMeta | undefined> => {
    if (!isStreamId(id)) return undefined;
    if (local.has(id)) return local.meta(id);
    await connected();
    if (closed) return undefined;
    try {
      return parseMeta(id, await send(['HGETALL', key(id, 'meta')]));
    } catch (error) {
      throw unavailable(id, error);
    }
  };

  async function* readRemote(id: string, after: number, signal: AbortSignal | undefined): AsyncGenerator<StreamLogRecord, void, undefined> {
    const stopped = (): boolean => signal?.aborted === true || closed;
    let next = after + 1;
    let cursor = `0-${after + 1}`;
    const truncated = (): StreamLogError =>
      new StreamLogError('stream_truncated', id, `the log holds this stream only up to position ${next - 1}`, { position: next - 1 });
    for (;;) {
      if (stopped()) return;
      let entries: Reply;
      try {
        entries = await send(['XRANGE', key(id, 'log'), `(${cursor}`, '+', 'COUNT', '256']);
      } catch (error) {
        throw unavailable(id, error);
      }
      if (Array.isArray(entries) && entries.length > 0) {
        for (const entry of entries) {
          if (!Array.isArray(entry)) continue;
          const [entryId, rawFields] = entry;
          const fields = new Map<string, string>();
          if (Array.isArray(rawFields)) for (let at = 0; at + 1 < rawFields.length; at += 2) fields.set(String(rawFields[at]), String(rawFields[at + 1]));
          if (entryId === '1-0') {
            const lastPosition = Number(fields.get('n') ?? -1);
            if (next <= lastPosition) throw truncated();
            yield { kind: 'end', outcome: JSON.parse(fields.get('t') ?? '{"kind":"producer_lost"}') as StreamOutcome, lastPosition };
            return;
          }
          const first = Number(fields.get('a') ?? 0);
          const values = JSON.parse(fields.get('e') ?? '[]') as string[];
          for (let at = 0; at < values.length; at++) {
            const position = first + at;
            if (position < next) continue;
            if (position > next) throw truncated();
            yield { kind: 'value', position, data: values[at] as string };
            next = position + 1;
            if (stopped()) return;
          }
          cursor = String(entryId);
        }
        continue;
      }
      // caught up: the stream's state, our presence, the producer's lease — then wait for more
      let state: Reply;
      try {
        state = await send(['HMGET', key(id, 'meta'), 'state', 'gap']);
        await send(['SET', key(id, 'seen'), '1', 'PX', String(presenceMs)]);
      } catch (error) {
        throw unavailable(id, error);
      }
      const [running, gap] = Array.isArray(state) ? state : [];
      if (running === null || running === undefined) throw new StreamLogError('stream_not_found', id, 'no such stream (unknown, or past its retention)');
      if (typeof gap === 'string' && next > Number(gap)) throw truncated();
      if (running === 'running') {
        try {
          const lease = await send(['EXISTS', key(id, 'lease')]);
          if (lease === 0) {
            const declared = await evalScript(STREAM_LOG_SCRIPTS.lost, [key(id, 'meta'), key(id, 'log'), key(id, 'lease')], [
              settings.retentionMs,
              JSON.stringify({ kind: 'producer_lost' }),
            ]);
            if (declared === 1) local.countProducerLost();
            continue;
          }
        } catch (error) {
          throw unavailable(id, error);
        }
      }
      const blocking = await takeBlocking();
      if (blocking === undefined) {
        await sleep(POLL_MS);
        continue;
      }
      let healthy = true;
      try {
        const patience = blockMs + commandTimeoutMs + 1000;
        await within(blocking.sendCommand(['XREAD', 'COUNT', '1', 'BLOCK', String(blockMs), 'STREAMS', key(id, 'log'), cursor], { timeout: patience }), patience);
      } catch (error) {
        healthy = false;
        if (!closed) {
          local.countError();
          onError(asError(error));
        }
      } finally {
        giveBack(blocking, healthy);
      }
    }
  }

  async function* read(id: string, readConfig: StreamReadConfig = {}): AsyncGenerator<StreamLogRecord, void, undefined> {
    const { after = -1, signal } = readConfig;
    if (!Number.isSafeInteger(after) || after < -1) throw new ConfigError(`stream log: \`after\` is the last position the reader has (-1: none); got ${String(after)}`);
    if (!isStreamId(id)) throw new StreamLogError('stream_not_found', String(id).slice(0, 64), 'no such stream (unknown, or past its retention)');
    if (local.has(id)) {
      yield* local.read(id, readConfig);
      return;
    }
    if (closed) throw new StreamLogError('stream_not_found', id, 'the stream log is closed');
    const meta = await metaOf(id);
    if (meta === undefined) throw new StreamLogError('stream_not_found', id, 'no such stream (unknown, or past its retention)');
    yield* readRemote(id, after, signal);
  }

  return {
    open,
    read,
    meta: metaOf,
    cancel: async (id) => {
      if (!isStreamId(id)) return false;
      if (local.has(id)) return local.cancel(id);
      await connected();
      try {
        return (await evalScript(STREAM_LOG_SCRIPTS.cancel, [key(id, 'meta')], [`${prefix}ctl:`, id])) === 1;
      } catch (error) {
        throw unavailable(id, error);
      }
    },
    health: () => (client.isReady && !closed && Date.now() >= suspectUntil ? 'shared' : 'local'),
    stats: () => local.stats(),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const writer of [...writers.values()]) release(writer);
      await local.close();
      const others = [subscriber, ...blockingClients];
      blockingClients.clear();
      idle.length = 0;
      await connection.close(others);
    },
  };
}
