/**
 * createRedisStreamLog against a real redis-server (test/helpers/startRedis.ts): the stream log contract
 * (test/helpers/streamLogContractSuite.ts) with two log instances on one Redis as two processes' views, then what
 * only the Redis log does: fencing, TTLs on every key, no leaked keys or connections, Redis down and back.
 */
import { createClient } from 'redis';
import { createRedisStreamLog } from '../../src/redis/createRedisStreamLog';
import { STREAM_LOG_SCRIPTS } from '../../src/redis/STREAM_LOG_SCRIPTS';
import type { RedisStreamLogConfig } from '../../src/redis/RedisStreamLogConfig';
import type { StreamLog } from '../../src/store/StreamLog';
import { eventually, newStreamId, readAll, streamLogContractSuite } from '../helpers/streamLogContractSuite';
import { trackTimers } from '../helpers/trackTimers';
import { startRedis, type TestRedis } from '../helpers/startRedis';

let redis: TestRedis;
let admin: ReturnType<typeof createClient>;
beforeAll(async () => {
  redis = await startRedis();
  admin = createClient({ url: redis.url, RESP: 2 });
  admin.on('error', () => undefined);
  await admin.connect();
});
afterAll(async () => {
  if (admin.isReady) await admin.close();
  else admin.destroy();
  await redis.stop();
});

const LEASE_MS = 600;
const logOf = (config: Partial<RedisStreamLogConfig> = {}): StreamLog => createRedisStreamLog({ url: redis.url, commandTimeoutMs: 2000, ...config });
const META = { ownerKeyHash: 'hash-of-key-a', wire: 'sse' };
const command = (args: string[]): Promise<unknown> => admin.sendCommand(args);
/** The connections Redis counts (CLIENT LIST's lines), the admin's own included. */
const connections = async (): Promise<number> => String(await command(['CLIENT', 'LIST'])).trim().split('\n').length;
const keysOf = async (pattern = 'cf:*'): Promise<string[]> => {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = (await command(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [string, string[]];
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
};
const waitReady = async (log: StreamLog): Promise<void> => {
  expect(await eventually(() => log.health() === 'shared', 10_000)).toBe(true);
};

streamLogContractSuite({
  name: 'createRedisStreamLog (two instances, one redis-server)',
  views: (config) => {
    const producerLog = logOf(config);
    const readerLog = logOf(config);
    return { producerLog: new Proxy(producerLog, { get: readyFirst(producerLog) }), readerLog: new Proxy(readerLog, { get: readyFirst(readerLog) }) };
  },
  stopProducing: (producerLog) => producerLog.close(),
  lostAfter: { config: { leaseMs: LEASE_MS } as RedisStreamLogConfig, withinMs: LEASE_MS + 3000 },
  quick: { leaseMs: LEASE_MS } as RedisStreamLogConfig,
});

/** A view whose `open` and `read` first wait for the log's connection (a test's first command may come before it). */
function readyFirst(log: StreamLog) {
  return (target: StreamLog, name: keyof StreamLog): unknown => {
    const member = target[name];
    if (name === 'open') return async (...args: Parameters<StreamLog['open']>) => (await waitReady(log), target.open(...args));
    if (name === 'read')
      return async function* (...args: Parameters<StreamLog['read']>) {
        await waitReady(log);
        yield* target.read(...args);
      };
    return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(target) : member;
  };
}

describe('createRedisStreamLog', () => {
  const logs: StreamLog[] = [];
  const opened = async (config: Partial<RedisStreamLogConfig> = {}): Promise<StreamLog> => {
    const log = logOf(config);
    logs.push(log);
    await waitReady(log);
    return log;
  };
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((log) => log.close()));
  });

  it('keeps one stream under one hash tag, every key with a TTL, sliding while running and the retention after', async () => {
    const log = await opened({ retentionMs: 120_000, activeTtlMs: 60_000, leaseMs: 3000 });
    const reader = await opened();
    const id = newStreamId();
    const producer = await log.open(id, META);
    producer.append('0');
    const reading = readAll(reader, id);
    expect(await eventually(async () => (await keysOf(`cf:{${id}}:*`)).length === 4, 10_000)).toBe(true);
    const keys = (await keysOf(`cf:{${id}}:*`)).sort();
    expect(keys).toEqual([`cf:{${id}}:lease`, `cf:{${id}}:log`, `cf:{${id}}:meta`, `cf:{${id}}:seen`]);
    for (const key of keys) {
      const ttl = Number(await command(['PTTL', key]));
      expect({ key, hasTtl: ttl > 0 && ttl <= 60_000 }).toEqual({ key, hasTtl: true });
    }
    await producer.end({ kind: 'complete' });
    await reading;
    expect(Number(await command(['EXISTS', `cf:{${id}}:lease`]))).toBe(0);
    for (const key of [`cf:{${id}}:log`, `cf:{${id}}:meta`]) {
      const ttl = Number(await command(['PTTL', key]));
      expect({ key, retained: ttl > 60_000 && ttl <= 120_000 }).toEqual({ key, retained: true });
    }
  });

  it('refuses a late write of a producer declared lost (fencing epoch), and the producer goes on local-only', async () => {
    const log = await opened({ leaseMs: LEASE_MS });
    const reader = await opened({ leaseMs: LEASE_MS });
    const id = newStreamId();
    const producer = await log.open(id, META);
    producer.append('0');
    expect(await eventually(async () => (await reader.meta(id))?.lastPosition === 0, 10_000)).toBe(true);
    // a paused producer: its lease runs out (deleted here, as the expiry would), a reader declares it lost
    await command(['DEL', `cf:{${id}}:lease`]);
    expect((await readAll(reader, id)).at(-1)).toEqual({ kind: 'end', outcome: { kind: 'producer_lost' }, lastPosition: 0 });
    expect(await reader.meta(id)).toMatchObject({ state: 'producer_lost', epoch: 2 });
    expect(() => producer.append('late')).not.toThrow();
    expect(await eventually(() => producer.resumability === 'local', 10_000)).toBe(true);
    const entries = (await command(['XRANGE', `cf:{${id}}:log`, '-', '+'])) as Array<[string, string[]]>;
    expect(entries.map(([entryId]) => entryId)).toEqual(['0-1', '1-0']);
    // the script itself: an append with the stale epoch is refused
    const stale = await command([
      'EVAL', STREAM_LOG_SCRIPTS.append, '4', `cf:{${id}}:meta`, `cf:{${id}}:log`, `cf:{${id}}:lease`, `cf:{${id}}:seen`,
      '1', '1', '1', '["late"]', '60000', '600', 'zombie:1', '',
    ]);
    expect(stale).toEqual([-2, 0, 0]);
    await producer.end({ kind: 'complete' });
    expect((await reader.meta(id))?.state).toBe('producer_lost');
  });

  it('writes a retried batch once (explicit ids): the same append twice leaves one entry', async () => {
    const log = await opened();
    const id = newStreamId();
    const producer = await log.open(id, META);
    producer.append('0');
    expect(await eventually(async () => (await command(['HGET', `cf:{${id}}:meta`, 'last'])) === '0', 10_000)).toBe(true);
    const keys = [`cf:{${id}}:meta`, `cf:{${id}}:log`, `cf:{${id}}:lease`, `cf:{${id}}:seen`];
    const retry = ['EVAL', STREAM_LOG_SCRIPTS.append, '4', ...keys, '1', '1', '2', '["1","2"]', '60000', '5000', 'x:1', ''];
    expect(await command(retry)).toEqual([1, 0, 0]);
    expect(await command(retry)).toEqual([1, 0, 0]);
    expect(Number(await command(['XLEN', `cf:{${id}}:log`]))).toBe(2);
    await producer.end({ kind: 'complete' });
  });

  it('brings a cancel to an idle producer within 1 s by pub/sub, and by the meta flag with its next write', async () => {
    const log = await opened({ leaseMs: 60_000 }); // renewals every 20 s: only the publish can be this quick
    const other = await opened();
    const id = newStreamId();
    const producer = await log.open(id, META);
    producer.append('0');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const asked = Date.now();
    expect(await other.cancel(id)).toBe(true);
    expect(await eventually(() => producer.stopReason === 'cancelled', 5000)).toBe(true);
    expect(Date.now() - asked).toBeLessThan(1000);
    await producer.end({ kind: 'cancelled' });

    const quiet = newStreamId();
    const unheard = await log.open(quiet, META);
    await command(['HSET', `cf:{${quiet}}:meta`, 'cancel', '1']); // a cancel whose publish was lost
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(unheard.stopReason).toBeUndefined();
    unheard.append('next');
    expect(await eventually(() => unheard.stopReason === 'cancelled', 5000)).toBe(true);
    await unheard.end({ kind: 'cancelled' });
  });

  it('leaves no timer behind once closed', async () => {
    const log = await opened({ leaseMs: 900 });
    const reader = await opened({ leaseMs: 900 });
    const tracker = trackTimers();
    const producers = await Promise.all([newStreamId(), newStreamId()].map((id) => log.open(id, META, { abandonAfterMs: 60_000 })));
    for (const producer of producers) producer.append('0');
    const reading = readAll(reader, producers[0]?.id ?? '');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tracker.pending()).toBeGreaterThanOrEqual(4); // per producer: renewal, sliding expiry, abandon
    await reader.close();
    await log.close();
    await reading;
    // node-redis's command timeouts are AbortSignal.timeout()s: they cannot be cleared and end by themselves
    // (the longest: an XREAD's, blockMs + commandTimeoutMs + 1 s); ours are cleared by close
    await eventually(() => tracker.pending() <= 1, 10_000); // 1: eventually's own last wait
    await new Promise((resolve) => setImmediate(resolve));
    const left = tracker.origins();
    tracker.stop();
    expect(left).toEqual([]);
  });

  it('leaks nothing: every key has a TTL while streams run, the key count returns to its baseline, connections close', async () => {
    // a prefix of its own: the other tests' keys come and go meanwhile
    const baselineKeys = (await keysOf('leak:*')).length;
    const baselineConnections = await connections();
    const log = await opened({ retentionMs: 1000, keyPrefix: 'leak:' });
    const reader = await opened({ retentionMs: 1000, keyPrefix: 'leak:' });
    const ids = Array.from({ length: 60 }, () => newStreamId());
    const producers = await Promise.all(ids.map((id) => log.open(id, META)));
    producers.forEach((producer, n) => {
      for (let at = 0; at < 20; at++) producer.append(`${n}:${at}`);
    });
    const readings = ids.slice(0, 10).map((id) => readAll(reader, id));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const running = await keysOf('leak:*');
    expect(running.length).toBeGreaterThan(baselineKeys);
    const ttls = await Promise.all(running.map(async (key) => Number(await command(['PTTL', key]))));
    expect(running.filter((_, at) => (ttls[at] ?? -1) <= 0)).toEqual([]);
    await Promise.all(producers.map((producer) => producer.end({ kind: 'complete' })));
    for (const records of await Promise.all(readings)) expect(records).toHaveLength(21);
    expect(await eventually(async () => (await keysOf('leak:*')).length === baselineKeys, 15_000)).toBe(true);
    await log.close();
    await reader.close();
    expect(await eventually(async () => (await connections()) === baselineConnections, 10_000)).toBe(true);
  });

  it('never throws into the producer when Redis dies mid-stream; says local; shares new streams again once Redis is back', async () => {
    const log = await opened({ commandTimeoutMs: 300 });
    const id = newStreamId();
    const producer = await log.open(id, META);
    expect(producer.resumability).toBe('shared');
    producer.append('0');
    expect(await eventually(async () => (await command(['HGET', `cf:{${id}}:meta`, 'last'])) === '0', 10_000)).toBe(true);
    await redis.kill();
    let worst = 0;
    for (let n = 1; n < 200; n++) {
      const started = performance.now();
      producer.append(String(n));
      worst = Math.max(worst, performance.now() - started);
      if (n % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(worst).toBeLessThan(50); // synchronous, never waits on Redis (a generous bound for a busy machine)
    expect(await eventually(() => log.health() === 'local' && producer.resumability === 'local', 10_000)).toBe(true);
    // the same instance still replays the whole stream from its own copy
    const ending = producer.end({ kind: 'complete' });
    await expect(ending).resolves.toBeUndefined();
    const local = await readAll(log, id);
    expect(local).toHaveLength(201);
    expect(log.stats().degraded).toBeGreaterThanOrEqual(1);
    const whileDown = await log.open(newStreamId(), META);
    expect(whileDown.resumability).toBe('local');
    await whileDown.end({ kind: 'complete' });
    const other = logOf();
    logs.push(other);
    await expect(other.meta(newStreamId())).rejects.toMatchObject({ code: 'stream_unavailable' });

    await redis.restart();
    await waitReady(log);
    await waitReady(other);
    const again = newStreamId();
    const healed = await log.open(again, META);
    expect(healed.resumability).toBe('shared');
    healed.append('after');
    await healed.end({ kind: 'complete' });
    expect(await readAll(other, again)).toEqual([
      { kind: 'value', position: 0, data: 'after' },
      { kind: 'end', outcome: { kind: 'complete' }, lastPosition: 0 },
    ]);
  });

  it('turns a stream local-only when its writes fall behind (a full queue): what was queued is written, readers elsewhere stop at the gap', async () => {
    const log = await opened({ maxQueuedValues: 5 });
    const reader = await opened();
    const id = newStreamId();
    const producer = await log.open(id, META);
    for (let n = 0; n < 50; n++) producer.append(String(n)); // synchronously: nothing flushed yet
    expect(producer.resumability).toBe('local');
    expect(log.stats().degraded).toBe(1);
    const remote = await readAll(reader, id);
    expect(remote.flatMap((record) => (!(record instanceof Error) && record.kind === 'value' ? [record.position] : []))).toEqual([0, 1, 2, 3, 4]);
    expect(remote.at(-1)).toMatchObject({ code: 'stream_truncated', position: 4 });
    await producer.end({ kind: 'complete' });
    expect(await readAll(log, id)).toHaveLength(51); // the producer's instance has it all
    expect(await reader.meta(id)).toMatchObject({ state: 'complete', complete: false, lastPosition: 4 });
  });

  it('shares the first stream of a log used at once after its creation (it waits for its first connect)', async () => {
    const log = logOf(); // no wait for its connection
    logs.push(log);
    const id = newStreamId();
    const producer = await log.open(id, META);
    expect(producer.resumability).toBe('shared');
    producer.append('first');
    await producer.end({ kind: 'complete' });
    const other = logOf();
    logs.push(other);
    expect(await readAll(other, id)).toEqual([
      { kind: 'value', position: 0, data: 'first' },
      { kind: 'end', outcome: { kind: 'complete' }, lastPosition: 0 },
    ]);
  });

  it('opens new streams local-only at once while Redis hangs (after one timed-out command), shared again after', async () => {
    const log = await opened({ commandTimeoutMs: 300 });
    const pid = redis.pid ?? 0;
    process.kill(pid, 'SIGSTOP'); // Redis hangs: connections stay open, nothing answers
    try {
      const first = Date.now();
      const waited = await log.open(newStreamId(), META); // its open script times out
      const firstMs = Date.now() - first;
      expect(waited.resumability).toBe('local');
      expect(log.health()).toBe('local');
      const times: number[] = [];
      for (let n = 0; n < 5; n++) {
        const started = Date.now();
        const producer = await log.open(newStreamId(), META);
        times.push(Date.now() - started);
        expect(producer.resumability).toBe('local');
        await producer.end({ kind: 'complete' });
      }
      // the later opens do not wait a command timeout each (measured against the first one, which did)
      expect(firstMs).toBeGreaterThanOrEqual(250);
      expect(Math.max(...times)).toBeLessThan(firstMs);
      await waited.end({ kind: 'complete' });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(await eventually(() => log.health() === 'shared', 10_000)).toBe(true);
    const healed = await log.open(newStreamId(), META);
    expect(healed.resumability).toBe('shared');
    await healed.end({ kind: 'complete' });
  });

  it('abandons a stream whose readers elsewhere were cut off with Redis', async () => {
    const log = await opened({ leaseMs: LEASE_MS, commandTimeoutMs: 300 });
    const reader = await opened({ leaseMs: LEASE_MS, commandTimeoutMs: 300 });
    const id = newStreamId();
    const producer = await log.open(id, META, { abandonAfterMs: 300 });
    const detach = producer.attachClient();
    producer.append('0');
    const reading = readAll(reader, id);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the reader's presence reaches the producer
    detach();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(producer.stopReason).toBeUndefined(); // someone reads, elsewhere
    await redis.kill();
    try {
      producer.append('1'); // its write fails: the stream turns local-only, and nobody elsewhere can follow it
      expect(await eventually(() => producer.stopReason === 'abandoned', 10_000)).toBe(true);
      expect((await reading).at(-1)).toMatchObject({ code: 'stream_unavailable' });
      await producer.end({ kind: 'abandoned' });
    } finally {
      await redis.restart();
    }
  });

  it('opens local-only when Redis is down from the start, without waiting on it', async () => {
    await redis.kill();
    try {
      const log = logOf();
      logs.push(log);
      expect(log.health()).toBe('local');
      const producer = await log.open(newStreamId(), META);
      expect(producer.resumability).toBe('local');
      producer.append('x');
      await producer.end({ kind: 'complete' });
      expect(log.stats().degraded).toBe(1);
    } finally {
      await redis.restart();
    }
  });
});
