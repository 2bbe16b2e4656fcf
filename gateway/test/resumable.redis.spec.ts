/**
 * Resumable answers across instances (issue #30), over real processes: two gateway programs (A and B) in front of one
 * upstream emulator, sharing one `redis-server` (`CHATFLUX_REDIS_URL`). An answer produced by A is resumed, replayed
 * or cancelled through B; the emulator's request log says how many upstream requests there were and when each closed.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { EventSource } from 'eventsource';
import { createSeededRandom } from '../../src/testing/createSeededRandom';
import type { EmulatorRequest } from '../../src/testing/startEmulator';
import { largestPieceGap } from '../../test/helpers/largestPieceGap';
import { rawRequest } from '../../test/helpers/rawRequest';
import { cutAfterEvents, cutAfterLines, uiChatBody, uiPartCount } from '../../test/helpers/resumeContractSuite';
import { useGatewaysOnRedis, type RedisGateway as Gateway } from '../../test/helpers/useGatewaysOnRedis';
import { expectChunkSequence, ndjsonLines, sseFrames } from '../../test/helpers/wireAssertions';

const KEY = 'resume-gateway-key-0123456789';
const OTHER = 'resume-other-key-9876543210';
const UPSTREAM_KEY = 'sk-resume-upstream-key-42';
const LEASE_MS = 2000;
const RETENTION_MS = 8000;
const auth = { Authorization: `Bearer ${KEY}` };
const ask = (scenario: string): Record<string, unknown> => ({ model: `deepseek-chat#${scenario}`, messages: [{ role: 'user', content: 'Hello, world!' }] });

/** A TCP proxy sending each connection to the next backend in turn, cutting the first `cuts` after a random byte count. */
async function startCuttingProxy(backends: readonly string[], cuts: number, seed: number): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const random = createSeededRandom(seed);
  let connections = 0;
  let cutsLeft = cuts;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const backend = new URL(backends[connections++ % backends.length] as string);
    const upstream = connect(Number(backend.port), backend.hostname);
    sockets.add(client).add(upstream);
    const cutAfter = cutsLeft-- > 0 ? 1500 + random.int(6000) : Infinity; // bytes of the response, headers included
    let bytes = 0;
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes < cutAfter) return void client.write(chunk);
      client.write(chunk.subarray(0, chunk.length - (bytes - cutAfter)));
      client.destroy();
      upstream.destroy();
    });
    upstream.on('end', () => client.end());
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => (sockets.delete(socket), client.destroy(), upstream.destroy()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('resumable answers on Redis: two gateway processes, one redis-server', () => {
  const gateways = useGatewaysOnRedis({
    emulator: { seed: 5, apiKey: UPSTREAM_KEY },
    env: {
      CHATFLUX_GATEWAY_KEYS: `${KEY},${OTHER}`,
      CHATFLUX_TOKEN_SECRET: 'resume-token-secret-0123456789abcdef',
      CHATFLUX_STREAM_LEASE_MS: String(LEASE_MS),
      CHATFLUX_STREAM_RETENTION_MS: String(RETENTION_MS),
    },
  });
  let a: Gateway;
  let b: Gateway;
  beforeAll(async () => {
    [a, b] = await Promise.all([gateways.start(), gateways.start()]);
  }, 60_000);
  const upstreams = (): number => gateways.emulator.requests.length;
  /** Waits until both gateways open answers resumable everywhere again (after Redis came back); returns the last id. */
  const untilShared = async (): Promise<string> => {
    let id = '';
    for (const gateway of [a, b]) {
      let local: unknown = 'local';
      for (const deadline = Date.now() + 15_000; local !== undefined && Date.now() < deadline; ) {
        const res = await rawRequest(`${gateway.url}/chat/stream`, { headers: auth, body: ask('tokens=5') });
        local = res.headers['chatflux-resumable'];
        id = String(res.headers['chatflux-stream-id']);
        if (local !== undefined) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(local).toBeUndefined();
    }
    return id;
  };
  const latest = (): EmulatorRequest => gateways.emulator.requests.at(-1) as EmulatorRequest;

  it('drops POST /chat/sse on A at event 80 of 200 and resumes it on B with Last-Event-ID: byte for byte, one upstream request', async () => {
    const before = upstreams();
    const dropped = await rawRequest(`${a.url}/chat/sse`, {
      headers: auth,
      body: ask('tokens=200;pace=5'),
      onPiece: (_text, soFar) => (cutAfterEvents(soFar, 80) === undefined ? undefined : 'abort'),
    });
    const id = String(dropped.headers['chatflux-stream-id']);
    expect(dropped.headers['chatflux-resumable']).toBeUndefined(); // every instance can resume it
    const cut = cutAfterEvents(dropped.body, 80);
    expect(cut?.lastId).toBe(`${id}:79`);
    const resumed = await rawRequest(`${b.url}/chat/sse`, { headers: { ...auth, 'Last-Event-ID': cut?.lastId ?? '' }, body: ask('tokens=200;pace=5') });
    expect(resumed.status).toBe(200);
    const whole = await rawRequest(`${b.url}/chat/streams/${id}`, { headers: { ...auth, Accept: 'text/event-stream' } });
    expect(`${cut?.text}${resumed.body}`).toBe(whole.body);
    const frames = sseFrames(whole.body);
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
    frames.slice(0, -1).forEach((frame, position) => expect(frame.id).toBe(`${id}:${position}`));
    expectChunkSequence(frames.slice(0, -1).map((frame) => JSON.parse(frame.data ?? '') as unknown));
    expect(upstreams() - before).toBe(1);
  }, 30_000);

  it("drops useChat's POST /chat/ui (resume: true) on A and resumes it from its start: at GET /chat/ui/{chatId}/stream on A, and by its stream id on B (the ui wire), the same bytes, one upstream request", async () => {
    const before = upstreams();
    const dropped = await rawRequest(`${a.url}/chat/ui`, {
      headers: auth,
      body: uiChatBody('redis-chat', 'tokens=400;pace=5'),
      onPiece: (_text, soFar) => (uiPartCount(soFar) < 40 ? undefined : 'abort'),
    });
    const id = String(dropped.headers['chatflux-stream-id']);
    expect(dropped.headers['chatflux-resumable']).toBeUndefined(); // in the shared log
    const [onA, onB] = await Promise.all([
      rawRequest(`${a.url}/chat/ui/redis-chat/stream`, { headers: auth }),
      rawRequest(`${b.url}/chat/streams/${id}`, { headers: { ...auth, Accept: 'text/event-stream' } }),
    ]);
    expect(onA.status).toBe(200);
    expect(onA.headers['x-vercel-ai-ui-message-stream']).toBe('v1');
    expect(onA.body.startsWith(dropped.body)).toBe(true);
    expect(onA.body).toMatch(/data: \{"type":"finish"[^\n]*\n\ndata: \[DONE\]\n\n$/);
    expect(onB.headers['x-vercel-ai-ui-message-stream']).toBe('v1');
    expect(onB.body).toBe(onA.body);
    expect(upstreams() - before).toBe(1);
  }, 30_000);

  it('drops POST /chat/stream on A at line 80 and resumes it on B with ?after=79: the same lines, one upstream request', async () => {
    const before = upstreams();
    const dropped = await rawRequest(`${a.url}/chat/stream`, {
      headers: auth,
      body: ask('tokens=200;pace=5'),
      onPiece: (_text, soFar) => (cutAfterLines(soFar, 80) === undefined ? undefined : 'abort'),
    });
    const id = String(dropped.headers['chatflux-stream-id']);
    const resumed = await rawRequest(`${b.url}/chat/streams/${id}?after=79`, { headers: auth });
    expect(resumed.status).toBe(200);
    const whole = await rawRequest(`${b.url}/chat/streams/${id}`, { headers: auth });
    expect(`${cutAfterLines(dropped.body, 80) ?? ''}${resumed.body}`).toBe(whole.body);
    const lines = ndjsonLines(whole.body) as Array<{ index: number }>;
    lines.forEach((line, position) => expect(line.index).toBe(position));
    expectChunkSequence(lines);
    expect(upstreams() - before).toBe(1);
  }, 30_000);

  it('refuses another key on B with 404 (never 403), and replays a finished answer until its retention, then 204 / 404', async () => {
    const res = await rawRequest(`${a.url}/chat/stream`, { headers: auth, body: ask('tokens=10') });
    const id = String(res.headers['chatflux-stream-id']);
    expect((await rawRequest(`${b.url}/chat/streams/${id}`, { headers: { Authorization: `Bearer ${OTHER}` } })).status).toBe(404);
    expect((await rawRequest(`${b.url}/chat/streams/${id}/cancel`, { method: 'POST', headers: { Authorization: `Bearer ${OTHER}` } })).status).toBe(404);
    expect((await rawRequest(`${b.url}/chat/streams/${id}`, { headers: auth })).body).toBe(res.body);
    await new Promise((resolve) => setTimeout(resolve, RETENTION_MS + 1000)); // past the retention
    const gone = await rawRequest(`${b.url}/chat/streams/${id}`, { headers: auth });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatch(/"code":"stream_not_found"/);
    expect((await rawRequest(`${b.url}/chat/streams/${id}`, { headers: { ...auth, Accept: 'text/event-stream' } })).status).toBe(204);
    // An EventSource told 204 stops: no request more in twice its default reconnect delay.
    const proxy = await startCuttingProxy([b.url], 0, 1);
    const source = new EventSource(`${proxy.url}/chat/streams/${id}`, { fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...auth } }) });
    try {
      await new Promise((resolve) => setTimeout(resolve, 7000));
      expect(source.readyState).toBe(source.CLOSED);
      expect(proxy.connections()).toBe(1);
    } finally {
      source.close();
      await proxy.close();
    }
  }, 40_000);

  it('cancels through B an answer A produces: the upstream request is closed within 1 s, both readers get `cancelled`', async () => {
    let id = '';
    let streaming!: () => void;
    const first = new Promise<void>((resolve) => (streaming = resolve));
    const original = rawRequest(`${a.url}/chat/stream`, {
      headers: auth,
      body: ask('tokens=2000;pace=20'),
      onHeaders: (_status, headers) => (id = String(headers['chatflux-stream-id'])),
      onPiece: () => streaming(),
    });
    await first;
    const upstream = latest();
    let read!: () => void;
    const reading = new Promise<void>((resolve) => (read = resolve));
    const reader = rawRequest(`${b.url}/chat/streams/${id}`, { headers: auth, onPiece: () => read() });
    await reading;
    const cancelledAt = performance.now();
    const cancel = await rawRequest(`${b.url}/chat/streams/${id}/cancel`, { method: 'POST', headers: auth });
    expect(JSON.parse(cancel.body)).toEqual({ id, cancelled: true });
    await Promise.race([upstream.closed, new Promise((resolve) => setTimeout(resolve, 5000))]);
    const closedAfter = performance.now() - cancelledAt;
    expect(upstream.completed).toBe(false);
    expect(closedAfter).toBeLessThan(1000);
    for (const res of [await original, await reader]) {
      expect(ndjsonLines(res.body).at(-1)).toEqual({ error: { message: expect.any(String), type: 'aborted_error', code: 'cancelled' }, done: true });
    }
  }, 30_000);

  it('goes on after a disconnect from A: the answer completes upstream and replays in full on B', async () => {
    const dropped = await rawRequest(`${a.url}/chat/stream`, {
      headers: auth,
      body: ask('tokens=100;pace=5'),
      onPiece: (_text, soFar) => (cutAfterLines(soFar, 10) === undefined ? undefined : 'abort'),
    });
    const upstream = latest();
    await upstream.closed;
    expect(upstream.completed).toBe(true);
    const replay = await rawRequest(`${b.url}/chat/streams/${String(dropped.headers['chatflux-stream-id'])}`, { headers: auth });
    expect(replay.body.startsWith(cutAfterLines(dropped.body, 10) ?? '-')).toBe(true);
    expectChunkSequence(ndjsonLines(replay.body));
  }, 30_000);

  it('ends a reader on B with `producer_lost` within the lease + 1 s when A is killed (SIGKILL) mid-answer', async () => {
    const victim = await gateways.start();
    let id = '';
    let streaming!: () => void;
    const first = new Promise<void>((resolve) => (streaming = resolve));
    void rawRequest(`${victim.url}/chat/stream`, {
      headers: auth,
      body: ask('tokens=2000;pace=20'),
      onHeaders: (_status, headers) => (id = String(headers['chatflux-stream-id'])),
      onPiece: () => streaming(),
    }).catch(() => undefined);
    await first;
    let read!: () => void;
    const reading = new Promise<void>((resolve) => (read = resolve));
    const reader = rawRequest(`${b.url}/chat/streams/${id}`, { headers: auth, onPiece: () => read() });
    await reading;
    victim.child.kill('SIGKILL');
    const killedAt = performance.now();
    const res = await reader;
    const after = performance.now() - killedAt;
    expect(ndjsonLines(res.body).at(-1)).toEqual({ error: { message: expect.any(String), type: 'server_error', code: 'producer_lost' }, done: true });
    expect(after).toBeLessThan(LEASE_MS + 1000);
  }, 40_000);

  it('aborts the upstream of an answer nobody reads for CHATFLUX_ABANDON_AFTER_MS (1 s), and ends it as `abandoned`', async () => {
    const c = await gateways.start({ CHATFLUX_ABANDON_AFTER_MS: '1000' });
    const dropped = await rawRequest(`${c.url}/chat/stream`, {
      headers: auth,
      body: ask('tokens=2000;pace=20'),
      onPiece: (_text, soFar) => (cutAfterLines(soFar, 3) === undefined ? undefined : 'abort'),
    });
    const upstream = latest();
    const droppedAt = performance.now();
    await Promise.race([upstream.closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    expect(upstream.completed).toBe(false);
    expect(performance.now() - droppedAt).toBeGreaterThanOrEqual(900);
    const replay = await rawRequest(`${b.url}/chat/streams/${String(dropped.headers['chatflux-stream-id'])}`, { headers: auth });
    expect(ndjsonLines(replay.body).at(-1)).toEqual({ error: { message: expect.any(String), type: 'aborted_error', code: 'abandoned' }, done: true });
  }, 40_000);

  it('gives a real EventSource whose connection is cut 5 times at random points (A and B in turn) exactly one complete answer', async () => {
    const before = upstreams();
    const proxy = await startCuttingProxy([a.url, b.url], 5, 30);
    const q = encodeURIComponent(JSON.stringify(ask('tokens=800;pace=20')));
    const messages: Array<{ data: string; id: string }> = [];
    const source = new EventSource(`${proxy.url}/chat/sse?q=${q}`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...auth } }),
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no [DONE] after 50 s: ${messages.length} messages`)), 50_000);
        source.onmessage = (event) => {
          messages.push({ data: String(event.data), id: event.lastEventId });
          if (event.data === '[DONE]') {
            clearTimeout(timer);
            resolve();
          }
        };
      });
    } finally {
      source.close();
      await proxy.close();
    }
    expect(proxy.connections()).toBeGreaterThanOrEqual(6); // 5 cut, then the one that got to the end
    expect(messages.filter((message) => message.data === '[DONE]')).toHaveLength(1);
    const values = messages.slice(0, -1);
    const id = values[0]?.id.split(':')[0] ?? '';
    values.forEach((message, position) => expect(message.id).toBe(`${id}:${position}`)); // contiguous, no repeat
    const replay = await rawRequest(`${b.url}/chat/streams/${id}`, { headers: { ...auth, Accept: 'text/event-stream' } });
    expect(values.map((message) => message.data)).toEqual(sseFrames(replay.body).slice(0, -1).map((frame) => frame.data));
    expectChunkSequence(values.map((message) => JSON.parse(message.data) as unknown));
    expect(upstreams() - before).toBe(1);
  }, 60_000);

  it('streams unharmed with Redis down (local-only, said in a header), tells a resume elsewhere to retry, and is resumable again once Redis returns', async () => {
    // The baseline: the same paced answer with Redis up, in this test.
    const baseline = await rawRequest(`${a.url}/chat/sse`, { headers: auth, body: ask('tokens=60;pace=10') });
    expect(baseline.headers['chatflux-resumable']).toBeUndefined();
    await gateways.redis.kill();
    try {
      const local = await rawRequest(`${a.url}/chat/sse`, { headers: auth, body: ask('tokens=60;pace=10') });
      expect(local.status).toBe(200);
      expect(local.headers['chatflux-resumable']).toBe('local');
      expect(sseFrames(local.body).at(-1)).toEqual({ data: '[DONE]' });
      expect(largestPieceGap(local)).toBeLessThan(largestPieceGap(baseline) + 250); // no stall on a dead store
      const id = String(local.headers['chatflux-stream-id']);
      // The same instance still resumes it; the other one is told to come back.
      expect((await rawRequest(`${a.url}/chat/streams/${id}`, { headers: { ...auth, Accept: 'text/event-stream' } })).body).toBe(local.body);
      const elsewhereSse = await rawRequest(`${b.url}/chat/streams/${id}`, { headers: { ...auth, Accept: 'text/event-stream' } });
      expect(elsewhereSse.status).toBe(200);
      expect(elsewhereSse.body).toMatch(/^retry: \d+\n\n$/);
      const elsewhere = await rawRequest(`${b.url}/chat/streams/${id}`, { headers: auth });
      expect(elsewhere.status).toBe(503);
      expect(Number(elsewhere.headers['retry-after'])).toBeGreaterThan(0);
      expect(elsewhere.body).toMatch(/"code":"stream_unavailable"/);
      // The metric counts the answers that were resumable locally only.
      const metrics = (await rawRequest(`${a.url}/metrics`)).body;
      expect(Number(/^chatflux_streams_degraded(?:_total)?(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    } finally {
      await gateways.redis.restart();
    }
    // Without a restart of the gateways: shared again (the log reconnects on its own).
    const id = await untilShared();
    expect((await rawRequest(`${a.url}/chat/streams/${id}`, { headers: auth })).status).toBe(200);
  }, 60_000);

  it('keeps serving a stream whose Redis dies mid-answer: no gap beyond the baseline, the whole answer delivered', async () => {
    const baseline = await rawRequest(`${a.url}/chat/sse`, { headers: auth, body: ask('tokens=100;pace=10') });
    let killed = false;
    const during = await rawRequest(`${a.url}/chat/sse`, {
      headers: auth,
      body: ask('tokens=100;pace=10'),
      onPiece: (_text, soFar) => {
        if (!killed && cutAfterEvents(soFar, 30) !== undefined) {
          killed = true;
          void gateways.redis.kill();
        }
      },
    });
    try {
      expect(killed).toBe(true);
      const frames = sseFrames(during.body);
      expect(frames.at(-1)).toEqual({ data: '[DONE]' });
      expectChunkSequence(frames.slice(0, -1).map((frame) => JSON.parse(frame.data ?? '') as unknown));
      expect(largestPieceGap(during)).toBeLessThan(largestPieceGap(baseline) + 250);
    } finally {
      await gateways.redis.restart();
    }
    await untilShared();
  }, 60_000);

});
