import { request } from 'node:http';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawPost } from './helpers/rawPost';
import { promptBound } from '../helpers/promptBound';

const body = { model: 'deepseek-chat', stream: true, messages: [{ role: 'user', content: '讲一个很长的故事 📖' }] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (check: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(5);
  }
};

describe('startEmulator lifecycle', () => {
  const emulators: Emulator[] = [];
  const start = async (...args: Parameters<typeof startEmulator>) => {
    const emulator = await startEmulator(...args);
    emulators.push(emulator);
    return emulator;
  };
  afterEach(async () => {
    await Promise.all(emulators.splice(0).map((e) => e.close()));
  });

  describe('determinism', () => {
    it.each(['deepseek', 'moonshot', 'openai'] as const)(
      '%s: the same request and seed give byte-identical streams',
      async (dialect) => {
        const a = await start({ dialect, seed: 42 });
        const b = await start({ dialect, seed: 42 });
        const payload = {
          ...body,
          model: dialect === 'moonshot' ? 'kimi-k2-thinking' : 'deepseek-reasoner',
          stream_options: { include_usage: true },
        };
        const headers = { 'x-emulator-tokens': '6' };
        const split = { headers: { ...headers, 'x-emulator-scenario': 'split=random' } };
        const first = (await rawPost(a.url, payload, split)).body;
        const second = (await rawPost(b.url, payload, split)).body;
        expect(first.length).toBeGreaterThan(500);
        expect(second.equals(first)).toBe(true);
        expect((await rawPost(a.url, payload, { headers })).body.equals(first)).toBe(true);
        const other = await start({ dialect, seed: 43 });
        expect((await rawPost(other.url, payload, { headers })).body.equals(first)).toBe(false);
        const changed = { ...payload, messages: [{ role: 'user', content: 'another question' }] };
        expect((await rawPost(a.url, changed, { headers })).body.equals(first)).toBe(false);
      },
    );
  });

  describe('cancellation', () => {
    it('records a client that goes away mid-stream, promptly, and stops writing', async () => {
      const emulator = await start({ paceMs: 10 });
      const res = await rawPost(emulator.url, body, { headers: { 'x-emulator-tokens': '100000' }, stopAfterMs: 150 });
      expect(res.status).toBe(200);
      const record = emulator.requests[0]!;
      const closedAt = Date.now();
      await record.closed;
      expect(Date.now() - closedAt).toBeLessThan(promptBound(1000));
      expect(record.closedEarly).toBe(true);
      expect(record.completed).toBe(false);
      expect(emulator.aborted).toBe(1);
      const written = record.framesWritten;
      expect(written).toBeGreaterThan(0);
      await sleep(100);
      expect(record.framesWritten).toBe(written);
    });

    it('records the abort of a client waiting in the queue phase or on a stall', async () => {
      const emulator = await start();
      await rawPost(emulator.url, body, { headers: { 'x-emulator-scenario': 'queue=10000' }, stopAfterMs: 100 });
      await rawPost(emulator.url, body, {
        headers: { 'x-emulator-scenario': 'headers-delay=10000' },
        stopAfterMs: 100,
      });
      await Promise.all(emulator.requests.map((r) => r.closed));
      expect(emulator.requests.map((r) => [r.closedEarly, r.framesWritten])).toEqual([
        [true, 0],
        [true, 0],
      ]);
      expect(emulator.aborted).toBe(2);
    });

    it('a complete answer is not an abort', async () => {
      const emulator = await start();
      await rawPost(emulator.url, body);
      const record = await emulator.waitForRequest();
      await record.closed;
      expect(record).toMatchObject({ completed: true, closedEarly: false, status: 200 });
      expect(emulator.aborted).toBe(0);
    });

    it('close() ends stalled streams and resolves', async () => {
      const emulator = await start();
      const pending = rawPost(emulator.url, body, { headers: { 'x-emulator-scenario': 'stall-after=1' } });
      const record = await emulator.waitForRequest((r) => r.body !== undefined);
      await until(() => record.framesWritten === 1);
      await emulator.close();
      const res = await pending;
      expect(res.ended).toBe(false);
      expect(emulator.aborted).toBe(0);
    });
  });

  describe('backpressure', () => {
    it('a paused reader pauses the generation of a long answer', async () => {
      const emulator = await start();
      const req = request(`${emulator.url}/chat/completions`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-emulator-tokens': '1000000' },
      });
      req.on('error', () => undefined);
      req.on('response', (res) => {
        res.on('error', () => undefined);
        res.pause();
      });
      req.end(JSON.stringify(body));
      const record = await emulator.waitForRequest();
      await until(() => record.waitingForDrain);
      const written = record.framesWritten;
      await sleep(300);
      expect(record.waitingForDrain).toBe(true);
      expect(record.framesWritten).toBe(written);
      expect(written).toBeLessThan(100_000);
      req.destroy();
      await record.closed;
      expect(record.closedEarly).toBe(true);
    });
  });
});
