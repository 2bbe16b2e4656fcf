/**
 * createMemoryStreamLog: the stream log contract (test/helpers/streamLogContractSuite.ts) in one process, and what only
 * the memory log does (its stream cap, health always local).
 */
import { createMemoryStreamLog } from '../../src/store/createMemoryStreamLog';
import { isStreamLogError } from '../../src/core/errors';
import { trackTimers } from '../helpers/trackTimers';
import { newStreamId, readAll, streamLogContractSuite } from '../helpers/streamLogContractSuite';

streamLogContractSuite({
  name: 'createMemoryStreamLog',
  views: (config) => {
    const log = createMemoryStreamLog(config);
    return { producerLog: log, readerLog: log };
  },
  stopProducing: () => Promise.resolve(),
  lostAfter: { config: { activeTtlMs: 800 }, withinMs: 800 + 3000 },
  quick: {},
});

describe('createMemoryStreamLog', () => {
  it('holds at most maxStreams streams, dropping the oldest finished one first', async () => {
    const log = createMemoryStreamLog({ maxStreams: 2 });
    const [a, b, c] = [newStreamId(), newStreamId(), newStreamId()];
    const first = await log.open(a, { ownerKeyHash: '', wire: 'sse' });
    const second = await log.open(b, { ownerKeyHash: '', wire: 'sse' });
    await second.end({ kind: 'complete' });
    await log.open(c, { ownerKeyHash: '', wire: 'sse' });
    expect(await log.meta(b)).toBeUndefined();
    expect((await log.meta(a))?.state).toBe('running');
    expect((await log.meta(c))?.state).toBe('running');
    await log.open(newStreamId(), { ownerKeyHash: '', wire: 'sse' }); // all running: the oldest goes
    expect(await log.meta(a)).toBeUndefined();
    first.append('not logged');
    const [error] = await readAll(log, a);
    expect(isStreamLogError(error) && error.code).toBe('stream_not_found');
    expect(log.health()).toBe('local');
    await log.close();
  });

  it('still abandons a running stream dropped by the cap once its client leaves (nobody can resume or cancel it)', async () => {
    const log = createMemoryStreamLog({ maxStreams: 1 });
    const producer = await log.open(newStreamId(), { ownerKeyHash: '', wire: 'sse' }, { abandonAfterMs: 50 });
    const detach = producer.attachClient();
    await log.open(newStreamId(), { ownerKeyHash: '', wire: 'sse' }); // the cap drops the running stream
    detach(); // its client goes away: no reader can ever come back to it
    const stopped = await new Promise<boolean>((resolve) => {
      const giveUp = setTimeout(() => resolve(false), 10_000);
      producer.signal.addEventListener('abort', () => (clearTimeout(giveUp), resolve(true)), { once: true });
    });
    expect(stopped).toBe(true);
    expect(producer.stopReason).toBe('abandoned');
    await log.close();
  });

  it('holds at most maxTotalBytes in all: the oldest finished streams go first, then a running stream stops logging', async () => {
    const log = createMemoryStreamLog({ maxTotalBytes: 10 });
    const [a, b, c] = [newStreamId(), newStreamId(), newStreamId()];
    const first = await log.open(a, { ownerKeyHash: '', wire: 'sse' });
    first.append('aaaa');
    await first.end({ kind: 'complete' });
    const second = await log.open(b, { ownerKeyHash: '', wire: 'sse' });
    second.append('bbbb');
    const third = await log.open(c, { ownerKeyHash: '', wire: 'sse' });
    third.append('cccc'); // 12 > 10: the finished `a` goes
    expect(await log.meta(a)).toBeUndefined();
    expect((await log.meta(b))?.complete).toBe(true);
    third.append('cc'); // 10: fits
    third.append('c'); // 11, and only running streams are left: c stops logging
    expect((await log.meta(c))?.complete).toBe(false);
    expect((await log.meta(b))?.complete).toBe(true);
    await third.end({ kind: 'complete' });
    const records = await readAll(log, c);
    const error = records.at(-1);
    expect(isStreamLogError(error) && error.code).toBe('stream_truncated');
    expect(records.slice(0, -1)).toEqual([
      { kind: 'value', position: 0, data: 'cccc' },
      { kind: 'value', position: 1, data: 'cc' },
    ]);
    await second.end({ kind: 'complete' });
    await log.close();
  });

  it('leaves no timer behind once closed', async () => {
    const tracker = trackTimers();
    const log = createMemoryStreamLog();
    const running = await log.open(newStreamId(), { ownerKeyHash: '', wire: 'sse' }, { abandonAfterMs: 60_000 });
    running.append('0');
    const ended = await log.open(newStreamId(), { ownerKeyHash: '', wire: 'sse' });
    await ended.end({ kind: 'complete' }); // its retention timer
    expect(tracker.pending()).toBeGreaterThanOrEqual(3); // sliding expiry, abandon, retention
    await log.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(tracker.pending()).toBe(0);
    tracker.stop();
  });

  it('refuses bounds that are not positive whole numbers, and a retention over 24 h', () => {
    expect(() => createMemoryStreamLog({ retentionMs: 86_400_001 })).toThrow(/retentionMs/);
    expect(() => createMemoryStreamLog({ maxStreamBytes: 0 })).toThrow(/maxStreamBytes/);
    expect(() => createMemoryStreamLog({ maxStreams: 1.5 })).toThrow(/maxStreams/);
    expect(() => createMemoryStreamLog({ maxTotalBytes: -1 })).toThrow(/maxTotalBytes/);
  });
});
