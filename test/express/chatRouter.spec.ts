import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { chatRouter, type ChatRequestLog, type ChatRouterConfig } from '../../src/express/chatRouter';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { promptBound } from '../helpers/promptBound';
import { controlledRequest, rawRequest } from '../helpers/rawRequest';
import { sleep, waitFor } from '../helpers/streamSources';
import {
  contentOf,
  expectErrorAfterCommit,
  expectErrorBeforeCommit,
  expectEventSourceAnswer,
  expectJsonAnswer,
  expectNdjsonAnswer,
  expectSseAnswer,
  PING,
  sseFrames,
} from '../helpers/wireAssertions';

const HELLO = { messages: [{ role: 'user', content: 'Hello, world!' }] };

describe('chatRouter', () => {
  let emulator: Emulator;
  let client: ChatClient;
  let server: Server | undefined;
  let logs: ChatRequestLog[];

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 3 });
  });
  afterAll(async () => emulator.close());
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    server = undefined;
    await client?.close();
    emulator.setScenario();
  });

  const serve = async (config: Partial<ChatRouterConfig> = {}, timeouts = { firstChunk: 2000, idle: 1000 }): Promise<string> => {
    logs = [];
    client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0, timeouts });
    const app = express();
    app.use(chatRouter({ client, log: (entry) => logs.push(entry), ...config }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  describe('GET /chat/sse (EventSource)', () => {
    it('serves the request given as JSON in q', async () => {
      const url = await serve();
      const res = await rawRequest(`${url}/chat/sse?q=${encodeURIComponent(JSON.stringify(HELLO))}`);
      const viaPost = expectSseAnswer(await rawRequest(`${url}/chat/sse`, { body: HELLO }));
      expect(expectEventSourceAnswer(res)).toEqual(viaPost);
    });

    it('serves the demo request without q when one is configured, else 400', async () => {
      let url = await serve({ demoRequest: { messages: [{ role: 'user', content: 'demo' }] } });
      expect(contentOf(expectEventSourceAnswer(await rawRequest(`${url}/chat/sse`)))).toContain('demo');
      await new Promise((resolve) => server?.close(resolve));
      url = await serve();
      expectErrorBeforeCommit(await rawRequest(`${url}/chat/sse`), '/chat/sse', 400, 'invalid_request');
    });

    it('refuses a q that is too long (413), not JSON (400), or invalid (400)', async () => {
      const url = await serve({ queryLimit: 100 });
      const long = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(200) }] });
      expectErrorBeforeCommit(await rawRequest(`${url}/chat/sse?q=${encodeURIComponent(long)}`), '/chat/sse', 413, 'payload_too_large');
      expectErrorBeforeCommit(await rawRequest(`${url}/chat/sse?q=%7Bnope`), '/chat/sse', 400, 'invalid_request');
      expectErrorBeforeCommit(await rawRequest(`${url}/chat/sse?q=%7B%7D`), '/chat/sse', 400, 'invalid_request');
    });

    it('requires the key when keys are configured', async () => {
      const url = await serve({ apiKeys: ['k-0123456789'] });
      const q = `q=${encodeURIComponent(JSON.stringify(HELLO))}`;
      expectErrorBeforeCommit(await rawRequest(`${url}/chat/sse?${q}`), '/chat/sse', 401, 'unauthorized');
      expectEventSourceAnswer(await rawRequest(`${url}/chat/sse?${q}`, { headers: { Authorization: 'Bearer k-0123456789' } }));
    });
  });

  it('accepts a client config instead of a client', async () => {
    logs = [];
    const app = express();
    app.use(chatRouter({ client: { baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 } }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    expectJsonAnswer(await rawRequest(`http://127.0.0.1:${(server.address() as AddressInfo).port}/chat/json`, { body: HELLO }));
  });

  it('logs one structured entry per request, with usage and timings, never a key', async () => {
    const url = await serve({ apiKeys: ['gateway-secret-key-1'] });
    const auth = { Authorization: 'Bearer gateway-secret-key-1' };
    expectNdjsonAnswer(await rawRequest(`${url}/chat/stream`, { headers: auth, body: HELLO }));
    expectErrorBeforeCommit(await rawRequest(`${url}/chat/json`, { body: HELLO }), '/chat/json', 401);
    await waitFor(() => logs.length === 2);
    expect(logs[0]).toMatchObject({ endpoint: '/chat/stream', method: 'POST', status: 200, result: 'completed', model: 'deepseek-chat' });
    expect(logs[0]?.usage?.total_tokens).toBeGreaterThan(0);
    expect(logs[0]?.firstChunkMs).toBeGreaterThanOrEqual(0);
    expect(logs[0]?.durationMs).toBeGreaterThanOrEqual(logs[0]?.firstChunkMs ?? 0);
    expect(logs[1]).toMatchObject({ endpoint: '/chat/json', status: 401, result: 'failed', error: { code: 'unauthorized' } });
    expect(JSON.stringify(logs)).not.toContain('gateway-secret-key-1');
  });

  it.each(['/chat/stream', '/chat/sse'] as const)('%s: a client disconnect mid-stream aborts the upstream request promptly', async (endpoint) => {
    const url = await serve();
    const before = emulator.requests.length;
    let disconnectedAt = 0;
    await rawRequest(`${url}${endpoint}`, {
      body: { ...HELLO, model: 'deepseek-chat#pace=20;tokens=500' },
      onPiece: (_text, soFar) => (soFar.length > 200 ? ((disconnectedAt = performance.now()), 'abort') : undefined),
    });
    const upstream = await emulator.waitForRequest((r) => r.seq > before);
    await upstream.closed;
    expect(performance.now() - disconnectedAt).toBeLessThan(promptBound(1000));
    expect(upstream.closedEarly).toBe(true);
    expect(upstream.completed).toBe(false);
    await waitFor(() => logs.length === 1);
    expect(logs[0]?.result).toBe('disconnected');
  });

  it('a slow client on a long answer pauses the upstream: bytes read from the emulator stop growing', async () => {
    const url = await serve({}, { firstChunk: 5000, idle: 60_000 });
    const responses: import('node:http').ServerResponse[] = [];
    server?.prependListener('request', (_req, res) => responses.push(res));
    const before = emulator.requests.length;
    const client = controlledRequest(`${url}/chat/sse`, { body: { ...HELLO, model: 'deepseek-chat#tokens=1000000' }, paused: true });
    await client.response;
    const upstream = await emulator.waitForRequest((r) => r.seq > before);
    // The kernel's loopback buffers on both hops fill first (auto-tuned, growing for a few seconds); then it stops.
    let stalledAt = -1;
    const deadline = Date.now() + 20_000;
    while (upstream.bytesWritten !== stalledAt && Date.now() < deadline) {
      stalledAt = upstream.bytesWritten;
      await sleep(1000);
    }
    expect(upstream.waitingForDrain).toBe(true);
    await sleep(500);
    expect(upstream.bytesWritten).toBe(stalledAt);
    // Bounded by socket buffers, not by the answer (a million tokens: over 100 MB on the wire) …
    expect(stalledAt).toBeLessThan(80 * 1024 * 1024);
    // … and the gateway itself holds next to nothing: its response buffer is within one write of the high-water mark.
    expect(responses[0]?.writableLength).toBeLessThan(256 * 1024);
    client.resume();
    await waitFor(() => upstream.bytesWritten > stalledAt + 100_000, 10_000);
    client.destroy();
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
  }, 40_000);

  it('/chat/sse: heartbeats during the queue phase and a stall; the idle timeout then ends the stream in-band', async () => {
    const url = await serve({ heartbeatMs: 100 }, { firstChunk: 5000, idle: 800 });
    const res = await rawRequest(`${url}/chat/sse`, { body: { ...HELLO, model: 'deepseek-chat#queue=600;stall-after=4' } });
    expect(res.pieces[0]?.text).toBe(PING);
    const frames = sseFrames(res.body);
    const firstData = frames.findIndex((f) => f.data !== undefined);
    expect(firstData).toBeGreaterThanOrEqual(3); // pings while the provider queued us
    const lastChunk = frames.map((f) => f.data !== undefined && f.event === undefined && f.data !== '[DONE]').lastIndexOf(true);
    const pingsInStall = frames.slice(lastChunk + 1).filter((f) => f.comment === 'ping').length;
    expect(pingsInStall).toBeGreaterThanOrEqual(4);
    const { error } = expectErrorAfterCommit(res, '/chat/sse', 1);
    expect(error).toEqual({ message: 'upstream idle timeout after 800 ms', type: 'timeout_error', code: 'timeout' });
  });

  it('curl -N reads all three endpoints', async () => {
    const url = await serve();
    const curl = (endpoint: string): Promise<string> =>
      new Promise((resolve, reject) =>
        execFile(
          '/usr/bin/curl',
          ['-sS', '-N', '-i', '-X', 'POST', `${url}${endpoint}`, '-H', 'Content-Type: application/json', '-d', JSON.stringify(HELLO)],
          { encoding: 'utf8' },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        ),
      );
    const json = await curl('/chat/json');
    expect(json).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(json).toMatch(/\r\nContent-Type: application\/json\r\n/i);
    const stream = await curl('/chat/stream');
    expect(stream).toMatch(/\r\nTransfer-Encoding: chunked\r\n/i);
    const ndjson = stream.slice(stream.indexOf('\r\n\r\n') + 4);
    const sse = await curl('/chat/sse');
    expect(sse).toMatch(/\r\nContent-Type: text\/event-stream\r\n/i);
    const events = sse.slice(sse.indexOf('\r\n\r\n') + 4);
    expect(events.endsWith('data: [DONE]\n\n')).toBe(true);
    const text = JSON.parse(json.slice(json.indexOf('\r\n\r\n') + 4)).message.content as string;
    expect(contentOf(ndjson.trim().split('\n').map((line) => JSON.parse(line)))).toBe(text);
  });
});
