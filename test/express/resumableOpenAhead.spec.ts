import { createChatClient } from '../../src/client/createChatClient';
import { createMemoryStreamLog } from '../../src/store/createMemoryStreamLog';
import type { StreamLog } from '../../src/store/StreamLog';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { startExpressChat } from '../helpers/startExpressChat';
import type { TestServer } from '../helpers/startServer';
import { expectChunkSequence, sseFrames } from '../helpers/wireAssertions';

/**
 * A resumable answer's upstream request does not wait for the stream log to open (a shared log's open is a round trip
 * to Redis, on the time to the first byte of every answer): it goes out at once, what it emits meanwhile waits for the
 * producer, and the answer's bytes and its log are what they were.
 */
describe('chatRouter — resumable: the upstream request goes out while the stream log opens', () => {
  const MODEL = 'deepseek-chat';
  let emulator: Emulator;
  let server: TestServer;
  let client: ReturnType<typeof createChatClient>;
  const memory = createMemoryStreamLog();
  /** Each open waits for `gate` (released by the test); `failNext` makes the next open reject once it is released. */
  let gate: { wait: Promise<void>; release: () => void };
  const newGate = (): void => {
    let release = (): void => undefined;
    const wait = new Promise<void>((resolve) => (release = resolve));
    gate = { wait, release };
  };
  let failNext = false;
  let opensPending = 0;
  const log: StreamLog = {
    ...memory,
    open: async (...args) => {
      opensPending++;
      await gate.wait;
      opensPending--;
      if (failNext) {
        failNext = false;
        throw new Error('the log cannot open this stream');
      }
      return memory.open(...args);
    },
  };
  const ask = (scenario: string): Record<string, unknown> => ({ model: `${MODEL}#${scenario}`, messages: [{ role: 'user', content: 'Hello, world!' }] });
  const until = async (what: string, check: () => boolean, ms = 10_000): Promise<void> => {
    for (const deadline = Date.now() + ms; !check(); ) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 5 });
    client = createChatClient({ baseUrl: emulator.url, apiKey: 'sk-test-open-ahead', model: MODEL, retry: false });
    server = await startExpressChat({ client, resumable: { log } });
  });
  afterAll(async () => {
    await server.close();
    await client.close();
    await emulator.close();
    await memory.close();
  });

  it('asks the upstream before the log has opened, then sends and logs the whole answer as before', async () => {
    newGate();
    const before = emulator.requests.length;
    const response = rawRequest(`${server.url}/chat/sse`, { body: ask('tokens=20') });
    try {
      await until('the log open', () => opensPending === 1);
      // The log has not opened yet, and the upstream was asked already (before: only once the open resolved).
      await until('the upstream request', () => emulator.requests.length === before + 1, 3000);
      expect(opensPending).toBe(1);
      await emulator.requests.at(-1)?.closed; // the whole upstream answer arrived and waits for the log
    } finally {
      gate.release();
    }
    const res = await response;
    expect(res.status).toBe(200);
    const id = String(res.headers['chatflux-stream-id']);
    const frames = sseFrames(res.body).filter((frame) => frame.comment === undefined);
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
    const values = frames.slice(0, -1);
    values.forEach((frame, position) => expect(frame.id).toBe(`${id}:${position}`));
    expectChunkSequence(values.map((frame) => JSON.parse(frame.data ?? '') as unknown));
    // The log holds every value the client got, in order, and the end.
    const logged: string[] = [];
    let end: unknown;
    for await (const record of memory.read(id, { after: -1 })) {
      if (record.kind === 'value') logged.push(record.data);
      else end = record.outcome;
    }
    expect(logged).toEqual(values.map((frame) => frame.data));
    expect(end).toEqual({ kind: 'complete' });
  });

  it('a log that cannot open still refuses the answer, and the upstream request already sent is aborted', async () => {
    newGate();
    failNext = true;
    const before = emulator.requests.length;
    const response = rawRequest(`${server.url}/chat/sse`, { body: ask('tokens=2000; pace=5') });
    try {
      await until('the log open', () => opensPending === 1);
      await until('the upstream request', () => emulator.requests.length === before + 1, 3000);
    } finally {
      gate.release();
    }
    const res = await response;
    expect(res.status).toBe(500);
    expect(sseFrames(res.body).some((frame) => frame.event === 'error')).toBe(true);
    const upstream = emulator.requests.at(-1);
    await Promise.race([upstream?.closed, new Promise((_resolve, reject) => setTimeout(() => reject(new Error('upstream request still open')), 5000))]);
    expect(upstream?.completed).toBe(false);
    expect(upstream?.closedEarly).toBe(true);
  });

  it('a client gone before the log opened leaves its place held by its answer until that answer ends (maxConcurrentPerClient)', async () => {
    const limited = await startExpressChat({ client, resumable: { log }, maxConcurrentPerClient: 1 });
    try {
      newGate();
      const cut = new AbortController();
      const before = emulator.requests.length;
      void rawRequest(`${limited.url}/chat/sse`, { body: ask('tokens=60; pace=20'), signal: cut.signal }).catch(() => undefined);
      try {
        await until('the log open', () => opensPending === 1);
        await until('the upstream request', () => emulator.requests.length === before + 1, 3000);
        cut.abort(); // the client goes away while the log opens: its answer goes on (a disconnect is not a cancel)
        await new Promise((resolve) => setTimeout(resolve, 500)); // the server sees the close
      } finally {
        gate.release();
      }
      await until('the log opened', () => opensPending === 0);
      const upstream = emulator.requests.at(-1);
      expect(upstream?.completed).toBe(false); // still answering, into the log
      const second = await rawRequest(`${limited.url}/chat/sse`, { body: ask('tokens=2') });
      expect(second.status).toBe(429); // its place is the running answer's
      expect(second.body).toContain('concurrency_limit');
      await upstream?.closed;
      // freed once the answer has ended (its producer's end follows the upstream's by a moment): nothing leaks
      let third = 0;
      for (let i = 0; i < 50 && third !== 200; i++) {
        third = (await rawRequest(`${limited.url}/chat/sse`, { body: ask('tokens=2') })).status;
        if (third !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(third).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
