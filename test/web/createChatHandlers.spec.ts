/**
 * The web handlers over real HTTP (Hono on @hono/node-server), beyond the shared wire suite: the same headers,
 * statuses and bytes as the node core (Express's chatRouter, side by side), backpressure, cancellation.
 */
import express from 'express';
import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { createChatRoute } from '../../src/client/createChatRoute';
import { chatRouter } from '../../src/express/chatRouter';
import { startEmulator, type Emulator, type EmulatorRequest } from '../../src/testing/startEmulator';
import { createChatHandlers } from '../../src/web/createChatHandlers';
import { fetchSseToken } from '../helpers/fetchSseToken';
import { promptBound } from '../helpers/promptBound';
import { rawRequest, type RawResponse } from '../helpers/rawRequest';
import { startPoisonUpstream } from '../helpers/startPoisonUpstream';
import { startHonoChat, type HonoChat } from './startHonoChat';

const KEY = 'web-handlers-key-0123456789';
const AUTH = { Authorization: `Bearer ${KEY}` };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** The headers both servers must send alike (Date, Connection and Keep-Alive are the server's own). */
const HEADERS = ['content-type', 'cache-control', 'x-accel-buffering', 'content-length', 'retry-after', 'www-authenticate'];
const shape = (res: RawResponse): unknown => ({
  status: res.status,
  headers: Object.fromEntries(HEADERS.filter((name) => res.headers[name] !== undefined).map((name) => [name, res.headers[name]])),
  body: res.body,
});

/** Resolves once `read()` has not changed for `quietMs` and `quietPolls` polls; rejects after `deadlineMs`. */
const settles = async (read: () => number, quietMs: number, quietPolls: number, deadlineMs: number): Promise<number> => {
  const deadline = Date.now() + deadlineMs;
  let value = read();
  let since = Date.now();
  let polls = 0;
  while (Date.now() - since < quietMs || polls < quietPolls) {
    if (Date.now() > deadline) throw new Error(`still changing after ${deadlineMs} ms (now ${value})`);
    await sleep(25);
    polls += 1;
    if (read() !== value) [value, since, polls] = [read(), Date.now(), 0];
  }
  return value;
};

let emulator: Emulator;
let client: ChatClient;
let hono: HonoChat;
let expressServer: Server;
let expressUrl: string;
const sockets: Socket[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 11 });
  client = createChatClient({ baseUrl: emulator.url, apiKey: 'sk-up', model: 'deepseek-chat', retry: false, timeouts: { firstChunk: 2000, idle: 2000 } });
  const config = { client, apiKeys: [KEY], heartbeatMs: 0, demoRequest: { messages: [{ role: 'user' as const, content: 'demo' }] } };
  hono = await startHonoChat(config);
  const app = express();
  app.use(chatRouter(config));
  expressServer = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  expressUrl = `http://127.0.0.1:${(expressServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const close of closers) await close();
  await hono.close();
  expressServer.closeAllConnections();
  await new Promise((resolve) => expressServer.close(resolve));
  await client.close();
  await emulator.close();
});

describe('the same statuses, headers and bytes as the node serving core (Express chatRouter)', () => {
  const hello = { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hello, world!' }] };
  const q = encodeURIComponent(JSON.stringify(hello));
  const cases: Array<[string, string, Parameters<typeof rawRequest>[1]]> = [
    ['a JSON answer', '/chat/json', { headers: AUTH, body: hello }],
    ['an NDJSON answer', '/chat/stream', { headers: AUTH, body: hello }],
    ['an SSE answer', '/chat/sse', { headers: AUTH, body: hello }],
    ['GET /chat/sse?q=', `/chat/sse?q=${q}`, { headers: AUTH }],
    ['GET /chat/sse without q (the demo request)', '/chat/sse', { headers: AUTH }],
    ['GET /chat/sse with q twice', `/chat/sse?q=${q}&q=${q}`, { headers: AUTH }],
    ['GET /chat/sse with q over the limit', `/chat/sse?q=${'x'.repeat(9000)}`, { headers: AUTH }],
    ['GET /chat/sse with q not JSON', '/chat/sse?q=%7Bnope', { headers: AUTH }],
    ['401 without a key', '/chat/sse', { body: hello }],
    ['415 for text/plain', '/chat/stream', { headers: { ...AUTH, 'Content-Type': 'text/plain' }, body: 'hello' }],
    ['415 for a charset other than UTF-8', '/chat/json', { headers: { ...AUTH, 'Content-Type': 'application/json; charset=latin1' }, body: '{}' }],
    ['400 for a JSON string body', '/chat/json', { headers: AUTH, body: '"hello"' }],
    ['400 for an empty body', '/chat/json', { headers: AUTH, body: '' }],
    ['400 for the schema', '/chat/sse', { headers: AUTH, body: { messages: [] } }],
    ['an upstream 429 with Retry-After', '/chat/json', { headers: AUTH, body: { ...hello, model: 'deepseek-chat#status=429;retry-after=3' } }],
    ['an in-band error after the commit', '/chat/stream', { headers: AUTH, body: { ...hello, model: 'deepseek-chat#error-event-at=2' } }],
  ];
  it.each(cases)('%s', async (_name, path, options) => {
    const [web, node] = await Promise.all([rawRequest(hono.url + path, options), rawRequest(expressUrl + path, options)]);
    expect(shape(web)).toEqual(shape(node));
  });
});

describe('compressed bodies, as body-parser reads them', () => {
  const hello = JSON.stringify({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hello, world!' }] });
  const send = async (base: string, encoding: string, body: Buffer): Promise<{ status: number; body: string }> => {
    const res = await fetch(`${base}/chat/json`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      body: new Uint8Array(body),
    });
    return { status: res.status, body: await res.text() };
  };
  it.each([
    ['gzip', gzipSync(Buffer.from(hello))],
    ['deflate', deflateSync(Buffer.from(hello))],
    ['gzip, over the limit once inflated', gzipSync(Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] })))],
    ['compress (unsupported)', Buffer.from(hello)],
  ])('%s: the same status and bytes as the node core', async (name, body) => {
    const encoding = name.split(/[ ,]/)[0] ?? '';
    const [web, node] = await Promise.all([send(hono.url, encoding, body), send(expressUrl, encoding, body)]);
    expect(web).toEqual(node);
  });
});

describe('backpressure and cancellation', () => {
  it('a client that stops reading pauses the upstream read (TCP), not the server’s memory', async () => {
    const before = emulator.requests.length;
    const body = JSON.stringify({ model: 'deepseek-chat#tokens=1000000', messages: [{ role: 'user', content: 'a very long story' }] });
    // A client with the default timeouts (as the NestJS backpressure spec): the suite's 2 s idle timeout would end a
    // paused upstream read on a loaded machine before the test sees it paused.
    const patient = createChatClient({ baseUrl: emulator.url, apiKey: 'sk-up', model: 'deepseek-chat', retry: false });
    const server = await startHonoChat({ client: patient, apiKeys: [KEY], heartbeatMs: 0 });
    closers.push(async () => {
      await server.close();
      await patient.close();
    });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    sockets.push(socket);
    socket.pause(); // never read
    socket.write(
      `POST /chat/sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const upstream: EmulatorRequest = await emulator.waitForRequest((request) => request.seq > before);
    const paused = await settles(() => upstream.bytesWritten, 1000, 30, 60_000);
    expect(upstream.waitingForDrain).toBe(true);
    expect(upstream.completed).toBe(false);
    expect(paused).toBeLessThan(64 * 1024 * 1024);
    socket.destroy();
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
  }, 90_000);

  it.each(['/chat/json', '/chat/stream', '/chat/sse'])('%s: a client that disconnects mid-answer aborts the upstream request', async (endpoint) => {
    const before = emulator.requests.length;
    const abort = new AbortController();
    const done = rawRequest(hono.url + endpoint, {
      headers: AUTH,
      body: { model: 'deepseek-chat#pace=50;tokens=200', messages: [{ role: 'user', content: 'slow' }] },
      signal: abort.signal,
    });
    const upstream = await emulator.waitForRequest((request) => request.seq > before);
    await sleep(300);
    let abortedAt = Number.NaN;
    let timer: NodeJS.Timeout | undefined;
    const latency = Promise.race([
      upstream.closed.then(() => performance.now() - abortedAt),
      new Promise<number>((resolve) => (timer = setTimeout(resolve, 10_000, Number.POSITIVE_INFINITY))),
    ]).finally(() => clearTimeout(timer));
    abortedAt = performance.now();
    abort.abort();
    const res = await done;
    expect(res.body).not.toMatch(/"done":true|\[DONE\]/);
    expect(await latency).toBeLessThanOrEqual(promptBound(300));
    expect(upstream.closedEarly).toBe(true);
    expect(upstream.completed).toBe(false);
  });
});

describe('per-client concurrency (maxConcurrentPerClient)', () => {
  it('one client past its limit gets 429 concurrency_limit; its slot is released when the response ends', async () => {
    const limited = await startHonoChat({ client, apiKeys: [KEY], heartbeatMs: 0, maxConcurrentPerClient: 1 });
    try {
      const slow = { model: 'deepseek-chat#pace=20;tokens=20', messages: [{ role: 'user', content: 'slow' }] };
      const first = rawRequest(`${limited.url}/chat/stream`, { headers: AUTH, body: slow });
      await sleep(150);
      const refused = await rawRequest(`${limited.url}/chat/sse`, { headers: AUTH, body: slow });
      expect(refused.status).toBe(429);
      expect(refused.body).toContain('"code":"concurrency_limit"');
      expect((await first).status).toBe(200);
      await sleep(50);
      const after = await rawRequest(`${limited.url}/chat/json`, { headers: AUTH, body: slow });
      expect(after.status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("a route's restart (Chatflux-Accept-Restart), as the node core serves it", () => {
  it('a stream whose header accepts a restart gets the restart frame, then the whole answer; without it the cut error — the same bytes as Express', async () => {
    const cutting = await startEmulator({ dialect: 'deepseek', seed: 12, scenario: 'tokens=30;pace=1;reset-after=10' });
    const healthy = await startEmulator({ dialect: 'deepseek', seed: 12, scenario: 'tokens=30' });
    const route = createChatRoute({
      breaker: false,
      targets: [
        { baseUrl: cutting.url, model: 'deepseek-chat', name: 'cut', retry: false, prefill: false },
        { baseUrl: healthy.url, model: 'deepseek-chat', name: 'whole', retry: false, prefill: false },
      ],
    });
    const config = { client: route, heartbeatMs: 0 };
    const web = await startHonoChat(config);
    const app = express();
    app.use(chatRouter(config));
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    try {
      const node = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const body = { messages: [{ role: 'user', content: '你好' }] };
      const headers = { 'Chatflux-Accept-Restart': 'true' };
      const [ndjson, sse] = await Promise.all([rawRequest(`${web.url}/chat/stream`, { body, headers }), rawRequest(`${web.url}/chat/sse`, { body, headers })]);
      const lines = ndjson.body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { restart?: { code: string }; done: boolean; error?: unknown });
      const at = lines.findIndex((l) => l.restart !== undefined);
      expect(at).toBeGreaterThan(0);
      expect(lines[at]!.restart).toEqual({ code: 'network' });
      expect(lines[lines.length - 1]).toMatchObject({ done: true });
      expect(lines[lines.length - 1]!.error).toBeUndefined();
      expect(sse.body).toContain('event: restart\ndata: {');
      const fromNode = await rawRequest(`${node}/chat/stream`, { body, headers });
      expect(fromNode.body).toBe(ndjson.body);
      const plain = await rawRequest(`${web.url}/chat/stream`, { body });
      expect(plain.body).not.toContain('"restart"');
      expect(plain.body.trim().split('\n').at(-1)).toContain('"code":"network"');
    } finally {
      await web.close();
      await new Promise((resolve) => server.close(resolve));
      await route.close();
      await Promise.all([cutting.close(), healthy.close()]);
    }
  });
});

describe("a route's breakers count failures by caller, as the node core's: one client cannot open them for everyone", () => {
  it("key A's poisoned POSTs, GET /chat/sse?token=… and /v1/chat/completions count as one caller (its key's): key B is still served by the primary", async () => {
    const [KEY_A, KEY_B] = ['web-poison-key-a-0123456789', 'web-poison-key-b-0123456789'];
    const state = { down: false };
    const upstreams = [await startPoisonUpstream(state), await startPoisonUpstream(state)];
    const route = createChatRoute({
      breaker: { consecutiveFailures: 5, coolDownMs: 60_000 },
      targets: upstreams.map((u, i) => ({ baseUrl: `${u.url}/v1`, model: 'm', name: `t${i}`, retry: false })),
    });
    const config = { client: route, apiKeys: [KEY_A, KEY_B], heartbeatMs: 0 };
    const web = await startHonoChat(config, (app) => {
      const openAi = createChatHandlers(config);
      app.post('/v1/chat/completions', (c) => openAi.completions(c.req.raw));
    });
    try {
      const { token } = await fetchSseToken(web.url, KEY_A);
      const asA = { authorization: `Bearer ${KEY_A}` };
      for (let i = 0; i < 2; i++) {
        const body = { messages: [{ role: 'user', content: `poison ${i}` }] };
        expect((await rawRequest(`${web.url}/chat/json`, { headers: asA, body })).status).toBe(502);
        const get = await rawRequest(`${web.url}/chat/sse?token=${encodeURIComponent(token)}&q=${encodeURIComponent(JSON.stringify(body))}`);
        expect(get.body).toMatch(/^event: error\n/m);
        expect((await rawRequest(`${web.url}/v1/chat/completions`, { headers: asA, body: { ...body, model: 'm' } })).status).toBe(502);
      }
      // Every one of the 6 requests reached both targets (no breaker open yet).
      expect(upstreams.map((u) => u.requests.length)).toEqual([6, 6]);
      const b = await rawRequest(`${web.url}/chat/json`, { headers: { authorization: `Bearer ${KEY_B}` }, body: { messages: [{ role: 'user', content: 'hello' }] } });
      expect(b.status).toBe(200);
      expect((JSON.parse(b.body) as { attempts?: Array<{ target: string; outcome: string }> }).attempts?.map((a) => `${a.target}:${a.outcome}`)).toEqual(['t0:completed']);
    } finally {
      await web.close();
      await route.close();
      await Promise.all(upstreams.map((u) => u.close()));
    }
  });
});
