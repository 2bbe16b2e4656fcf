/**
 * The stream log's contract as one jest suite, run against every implementation (createMemoryStreamLog,
 * createRedisStreamLog): the SAME assertions, not copies. A target builds "views": logs as two processes would see
 * them (the Redis log: two instances on one Redis; the memory log: the same instance twice, one process).
 */
import fc from 'fast-check';
import { isStreamLogError } from '../../src/core/errors';
import type { StreamLog } from '../../src/store/StreamLog';
import type { StreamLogConfig } from '../../src/store/StreamLogConfig';
import type { StreamLogRecord } from '../../src/store/StreamLogRecord';
import type { StreamProducer } from '../../src/store/StreamProducer';
import { randomBytes } from 'node:crypto';

/** What the suite asks of an implementation. */
export interface StreamLogTarget {
  /** The implementation's name, for the suite's title. */
  readonly name: string;
  /**
   * A producer's log and a reader's log with these settings: two instances of one shared store, or the same
   * one-process log twice. The suite closes both.
   */
  views(config?: StreamLogConfig): { producerLog: StreamLog; readerLog: StreamLog };
  /**
   * Makes the producer of `producerLog` stop showing life without ending its streams (the Redis log: close it, so
   * its lease runs out; the memory log: nothing — it just stops appending, and `activeTtlMs` runs out).
   */
  stopProducing(producerLog: StreamLog): Promise<void>;
  /** The settings under which {@link stopProducing} leads to `producer_lost`, and the time that takes at most. */
  readonly lostAfter: { config: StreamLogConfig; withinMs: number };
  /** Settings that make the implementation's own clocks short (the Redis log's lease), for the presence test. */
  readonly quick: StreamLogConfig;
}

/** A fresh stream id: 128 random bits, base64url. */
export const newStreamId = (): string => randomBytes(16).toString('base64url');

/** Every record of a read, until it ends (or throws: the error is returned as the last item). */
export async function readAll(log: StreamLog, id: string, after = -1, signal?: AbortSignal): Promise<Array<StreamLogRecord | Error>> {
  const out: Array<StreamLogRecord | Error> = [];
  try {
    for await (const record of log.read(id, { after, signal })) out.push(record);
  } catch (error) {
    out.push(error as Error);
  }
  return out;
}

const values = (records: ReadonlyArray<StreamLogRecord | Error>): Array<[number, string]> =>
  records.flatMap((record) => (!(record instanceof Error) && record.kind === 'value' ? [[record.position, record.data] as [number, string]] : []));
const last = <T>(items: readonly T[]): T | undefined => items[items.length - 1];
const META = { ownerKeyHash: 'hash-of-key-a', wire: 'sse' };

/** Polls `probe` every 50 ms until it is true or `withinMs` passes; returns whether it became true. */
export async function eventually(probe: () => boolean | Promise<boolean>, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Registers the contract's tests for `target`. */
export function streamLogContractSuite(target: StreamLogTarget): void {
  describe(`the stream log contract: ${target.name}`, () => {
    const opened: StreamLog[] = [];
    const views = (config?: StreamLogConfig): { producerLog: StreamLog; readerLog: StreamLog } => {
      const made = target.views(config);
      opened.push(made.producerLog, made.readerLog);
      return made;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((log) => log.close()));
    });

    it('numbers values densely from 0 and replays them, in order, then the terminal entry', async () => {
      const { producerLog, readerLog } = views();
      const id = newStreamId();
      const producer = await producerLog.open(id, META);
      const positions = ['a', 'b', 'c', 'd'].map((data) => producer.append(data));
      expect(positions).toEqual([0, 1, 2, 3]);
      await producer.end({ kind: 'complete' });
      const records = await readAll(readerLog, id);
      expect(values(records)).toEqual([
        [0, 'a'],
        [1, 'b'],
        [2, 'c'],
        [3, 'd'],
      ]);
      expect(last(records)).toEqual({ kind: 'end', outcome: { kind: 'complete' }, lastPosition: 3 });
      expect(values(await readAll(readerLog, id, 1))).toEqual([
        [2, 'c'],
        [3, 'd'],
      ]);
      expect(await readAll(readerLog, id, 3)).toEqual([{ kind: 'end', outcome: { kind: 'complete' }, lastPosition: 3 }]);
    });

    it('catches a reader up, then follows live values, and ends only at the terminal entry', async () => {
      const { producerLog, readerLog } = views();
      const id = newStreamId();
      const producer = await producerLog.open(id, META);
      producer.append('0');
      producer.append('1');
      const seen: StreamLogRecord[] = [];
      let ended = false;
      const reading = (async () => {
        for await (const record of readerLog.read(id, { after: 0 })) seen.push(record);
        ended = true;
      })();
      expect(await eventually(() => seen.length === 1, 10_000)).toBe(true);
      for (let n = 2; n < 40; n++) {
        producer.append(String(n));
        if (n % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await eventually(() => seen.length === 39, 10_000)).toBe(true);
      expect(ended).toBe(false); // parks while the stream runs
      await producer.end({ kind: 'complete' });
      await reading;
      expect(seen.map((record) => (record.kind === 'value' ? record.position : 'end'))).toEqual([...Array.from({ length: 39 }, (_, n) => n + 1), 'end']);
      expect(seen.every((record) => record.kind !== 'value' || record.data === String(record.position))).toBe(true);
    });

    it.each([
      { kind: 'complete' as const },
      { kind: 'error' as const, status: 502, error: { message: 'the upstream provider could not be reached', type: 'upstream_error', code: 'network' } },
      { kind: 'cancelled' as const },
      { kind: 'abandoned' as const },
      { kind: 'producer_lost' as const },
    ])('keeps the terminal outcome $kind as given', async (outcome) => {
      const { producerLog, readerLog } = views();
      const id = newStreamId();
      const producer = await producerLog.open(id, META);
      producer.append('x');
      await producer.end(outcome);
      expect(last(await readAll(readerLog, id))).toEqual({ kind: 'end', outcome, lastPosition: 0 });
      expect((await readerLog.meta(id))?.state).toBe(outcome.kind);
    });

    it('keeps the owner and the wire in meta; knows nothing of unknown or malformed ids', async () => {
      const { producerLog, readerLog } = views();
      const id = newStreamId();
      const before = Date.now();
      const producer = await producerLog.open(id, { ownerKeyHash: 'owner-1', wire: 'ndjson' });
      producer.append('v');
      expect(await eventually(async () => (await readerLog.meta(id))?.lastPosition === 0, 10_000)).toBe(true);
      const meta = await readerLog.meta(id);
      expect(meta).toMatchObject({ id, ownerKeyHash: 'owner-1', wire: 'ndjson', state: 'running', complete: true });
      expect(meta?.createdAt).toBeGreaterThanOrEqual(before - 1000);
      await producer.end({ kind: 'complete' });
      expect(await readerLog.meta(id)).toMatchObject({ state: 'complete', lastPosition: 0 });
      expect(await readerLog.meta(newStreamId())).toBeUndefined();
      expect(await readerLog.meta('../../etc/passwd')).toBeUndefined();
      for (const unknown of [newStreamId(), 'no such id with spaces', 'x'.repeat(500)]) {
        const [error] = await readAll(readerLog, unknown);
        expect(isStreamLogError(error) && error.code).toBe('stream_not_found');
      }
      await expect(producerLog.open(id, META)).rejects.toMatchObject({ code: 'stream_exists' });
      await expect(producerLog.open('bad id!', META)).rejects.toMatchObject({ code: 'invalid_config' });
      await expect(producerLog.open(newStreamId(), { ownerKeyHash: 'k'.repeat(129), wire: 'sse' })).rejects.toMatchObject({ code: 'invalid_config' });
      expect(() => producer.append('after the end')).toThrow(/append after end/);
    });

    it('forgets a finished stream after its retention, not before', async () => {
      const { producerLog, readerLog } = views({ retentionMs: 600 });
      const id = newStreamId();
      const producer = await producerLog.open(id, META);
      producer.append('kept');
      await producer.end({ kind: 'complete' });
      const endedAt = Date.now();
      expect(values(await readAll(readerLog, id))).toEqual([[0, 'kept']]);
      expect(await eventually(async () => (await readerLog.meta(id)) === undefined, 10_000)).toBe(true);
      expect(Date.now() - endedAt).toBeGreaterThanOrEqual(550);
      const [error] = await readAll(readerLog, id);
      expect(isStreamLogError(error) && error.code).toBe('stream_not_found');
    });

    it('brings a cancel from another view to the producer, which ends the stream as cancelled', async () => {
      const { producerLog, readerLog } = views();
      const id = newStreamId();
      const producer = await producerLog.open(id, META);
      producer.append('0');
      const stopped = new Promise<unknown>((resolve) => producer.signal.addEventListener('abort', () => resolve(producer.signal.reason)));
      const reading = readAll(readerLog, id);
      const asked = Date.now();
      expect(await readerLog.cancel(id)).toBe(true);
      expect(await stopped).toBe('cancelled');
      expect(Date.now() - asked).toBeLessThan(5000);
      expect(producer.stopReason).toBe('cancelled');
      await producer.end({ kind: 'cancelled' });
      expect(last(await reading)).toEqual({ kind: 'end', outcome: { kind: 'cancelled' }, lastPosition: 0 });
      expect(await readerLog.cancel(id)).toBe(false);
      expect(await readerLog.cancel(newStreamId())).toBe(false);
    });

    it('abandons a stream with no reader anywhere for abandonAfterMs, and not while one reads', async () => {
      const { producerLog, readerLog } = views({ ...target.quick });
      const id = newStreamId();
      const producer = await producerLog.open(id, META, { abandonAfterMs: 300 });
      const detach = producer.attachClient();
      producer.append('0');
      const reader = new AbortController();
      const reading = readAll(readerLog, id, -1, reader.signal);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the reader's presence reaches the producer
      detach(); // the producer's own client went away: not a cancel
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(producer.stopReason).toBeUndefined();
      reader.abort();
      await reading;
      const left = Date.now();
      expect(await eventually(() => producer.stopReason === 'abandoned', 10_000)).toBe(true);
      expect(Date.now() - left).toBeGreaterThanOrEqual(250);
      expect(producer.signal.aborted).toBe(true);
      await producer.end({ kind: 'abandoned' });
    });

    it('ends a stream whose producer stopped showing life as producer_lost, never leaving a reader hanging', async () => {
      const { producerLog, readerLog } = views({ ...target.lostAfter.config });
      const id = newStreamId();
      const producer = await producerLog.open(id, META);
      producer.append('0');
      producer.append('1');
      expect(await eventually(async () => (await readerLog.meta(id))?.lastPosition === 1, 10_000)).toBe(true);
      const reading = readAll(readerLog, id);
      await target.stopProducing(producerLog);
      const stoppedAt = Date.now();
      const records = await reading;
      expect(Date.now() - stoppedAt).toBeLessThan(target.lostAfter.withinMs);
      expect(values(records)).toEqual([
        [0, '0'],
        [1, '1'],
      ]);
      expect(last(records)).toEqual({ kind: 'end', outcome: { kind: 'producer_lost' }, lastPosition: 1 });
      expect((await readerLog.meta(id))?.state).toBe('producer_lost');
      expect(readerLog.stats().producersLost + producerLog.stats().producersLost).toBeGreaterThanOrEqual(1);
    });

    it('logs a stream up to its cap; a reader gets what was logged, then stream_truncated', async () => {
      const { producerLog, readerLog } = views({ maxStreamEntries: 5 });
      const id = newStreamId();
      const producer = await producerLog.open(id, META);
      for (let n = 0; n < 8; n++) expect(producer.append(String(n))).toBe(n);
      expect(producer.resumability).toBe('local');
      await producer.end({ kind: 'complete' });
      const records = await readAll(readerLog, id);
      expect(values(records).map(([position]) => position)).toEqual([0, 1, 2, 3, 4]);
      const error = last(records);
      expect(isStreamLogError(error) && { code: error.code, position: error.position }).toEqual({ code: 'stream_truncated', position: 4 });
      expect(await readerLog.meta(id)).toMatchObject({ complete: false, lastPosition: 4 });
      expect(producerLog.stats().degraded).toBeGreaterThanOrEqual(1);
    });

    it('ends readers when the log closes, and refuses nothing to the producer', async () => {
      const { producerLog, readerLog } = views();
      const id = newStreamId();
      const producer = await producerLog.open(id, META);
      producer.append('0');
      const reading = readAll(readerLog, id);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await readerLog.close();
      const records = await reading;
      expect(records.some((record) => !(record instanceof Error) && record.kind === 'end')).toBe(false);
      expect(() => producer.append('1')).not.toThrow();
      await producer.end({ kind: 'complete' });
    });

    it('gives every reader the same sequence, whatever the interleaving of append batches and reads (property)', async () => {
      const { producerLog, readerLog } = views();
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.string({ maxLength: 12 }), { minLength: 0, maxLength: 6 }), { minLength: 1, maxLength: 6 }),
          fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 4 }),
          async (batches, readAfter) => {
            const id = newStreamId();
            const producer = await producerLog.open(id, META);
            const all = batches.flat();
            const readers = readAfter.map((after, at) => {
              const from = Math.min(after, all.length) - 1;
              return { from, records: at % 2 === 0 ? readAll(readerLog, id, from) : undefined };
            });
            for (const batch of batches) {
              for (const value of batch) producer.append(value);
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
            await producer.end({ kind: 'complete' });
            for (const reader of readers) {
              const records = await (reader.records ?? readAll(readerLog, id, reader.from));
              expect(values(records)).toEqual(all.map((value, position) => [position, value]).slice(reader.from + 1));
              expect(last(records)).toEqual({ kind: 'end', outcome: { kind: 'complete' }, lastPosition: all.length - 1 });
            }
          },
        ),
        { numRuns: 20 },
      );
    });
  });
}

export type { StreamProducer };
