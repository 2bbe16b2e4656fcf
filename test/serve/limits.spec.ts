/**
 * The serving options' `limits` in one process (the memory store), over real HTTP on both transports: Express's
 * chatRouter (node) and the web handlers (Hono) answer with the same rate-limit headers, the same 429 and the same
 * bytes; without `limits` nothing of it is sent; a wrong `limits` is refused when the endpoints are made.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChatClient } from '../../src/client/createChatClient';
import { isConfigError } from '../../src/core/errors';
import { chatRouter } from '../../src/express/chatRouter';
import { createRateLimiter } from '../../src/serve/createRateLimiter';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest, type RawResponse } from '../helpers/rawRequest';
import { startHonoChat, type HonoChat } from '../web/startHonoChat';

const KEY = 'limits-core-key-0123456789';
const AUTH = { Authorization: `Bearer ${KEY}` };
const ask = { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hi' }] };
const LIMIT_HEADERS = ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'ratelimit-policy', 'retry-after', 'retry-after-ms'];
const shape = (res: RawResponse): unknown => ({
  status: res.status,
  headers: Object.fromEntries(LIMIT_HEADERS.filter((name) => res.headers[name] !== undefined).map((name) => [name, name === 'retry-after-ms' ? 'ms' : res.headers[name]])),
  retryAfterMs: Number(res.headers['retry-after-ms']),
  body: res.status === 200 ? 'answer' : res.body,
});

let emulator: Emulator;
const closers: Array<() => Promise<void>> = [];
const startBoth = async (extra: Record<string, unknown>): Promise<[string, string]> => {
  const client = createChatClient({ baseUrl: emulator.url, apiKey: 'sk-up', model: 'deepseek-chat', retry: false });
  const config = { client, apiKeys: [KEY], heartbeatMs: 0, ...extra };
  const hono: HonoChat = await startHonoChat(config);
  const app = express();
  app.use(chatRouter(config));
  const server: Server = await new Promise((resolve) => {
    const made = app.listen(0, '127.0.0.1', () => resolve(made));
  });
  closers.push(hono.close, () => new Promise((resolve) => server.close(() => resolve())), () => client.close());
  return [`http://127.0.0.1:${(server.address() as AddressInfo).port}`, hono.url];
};

beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 7 });
});
afterAll(async () => {
  for (const close of closers) await close();
  await emulator.close();
});

describe('limits, in one process', () => {
  it('answers alike on node and web: the headers counted down, then 429 rate_limit_exceeded with Retry-After and retry-after-ms', async () => {
    const urls = await startBoth({ limits: { requestsPerMinute: 3, maxConcurrent: 5 } });
    const [node = [], web = []] = await Promise.all(
      urls.map(async (url) => {
        const seen: unknown[] = [];
        for (const path of ['/chat/json', '/chat/stream', '/chat/sse', '/chat/stream']) seen.push(shape(await rawRequest(`${url}${path}`, { headers: AUTH, body: ask })));
        return seen;
      }),
    );
    const alike = (seen: unknown[]): unknown[] => seen.map((res) => ({ ...(res as object), retryAfterMs: undefined }));
    expect(alike(web)).toEqual(alike(node));
    expect(node.map((res) => (res as { headers: Record<string, string> }).headers['x-ratelimit-remaining-requests'])).toEqual(['2', '1', '0', '0']);
    expect(node[0]).toMatchObject({ status: 200, headers: { 'x-ratelimit-limit-requests': '3', 'ratelimit-policy': '"requests";q=3;w=60, "concurrency";q=5' } });
    expect(node[3]).toMatchObject({ status: 429, headers: { 'retry-after': '20' } });
    const refused = node[3] as { retryAfterMs: number; body: string };
    expect(refused.retryAfterMs).toBeGreaterThan(19_000); // one interval (60 s / 3) less the time the three took
    expect(refused.retryAfterMs).toBeLessThanOrEqual(20_000);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' }, done: true });
  });

  it('sends the headers on Anthropic\'s /v1/messages too (its x-api-key counted as the key), and its 429 in Anthropic\'s shape', async () => {
    const [node] = await startBoth({ limits: { requestsPerMinute: 1 } });
    const body = { model: 'deepseek-chat', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], stream: true };
    const first = await rawRequest(`${node}/v1/messages`, { headers: { 'x-api-key': KEY }, body });
    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit-requests': '1', 'x-ratelimit-remaining-requests': '0', 'ratelimit-policy': '"requests";q=1;w=60' });
    const second = await rawRequest(`${node}/v1/messages`, { headers: { 'x-api-key': KEY }, body });
    expect(second.status).toBe(429);
    expect(Number(second.headers['retry-after-ms'])).toBeGreaterThan(0);
    expect(JSON.parse(second.body)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('sends none of it without limits (the per-process maxConcurrentPerClient alone, as before)', async () => {
    const [node, web] = await startBoth({});
    for (const url of [node, web]) {
      const res = await rawRequest(`${url}/chat/stream`, { headers: AUTH, body: ask });
      expect(res.status).toBe(200);
      expect(Object.keys(res.headers).filter((name) => /ratelimit/i.test(name))).toEqual([]);
    }
  });

  it.each([
    [{ requestsPerMinute: 0 }, /requestsPerMinute/],
    [{ maxConcurrent: 1.5 }, /maxConcurrent/],
    [{ perClient: { 'key:x': { requestsPerMinute: -1 } } }, /perClient\["key:x"\]/],
    [{ onStoreFailure: 'maybe' }, /'local', 'open' or 'closed'/],
    [{ expectedInstances: 0 }, /expectedInstances/],
    [{ placeTtlMs: 10 }, /placeTtlMs/],
  ])('refuses limits %j when the endpoints are made, naming the field', (limits, message) => {
    let thrown: unknown;
    try {
      createRateLimiter(limits as never);
    } catch (error) {
      thrown = error;
    }
    expect(isConfigError(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(message);
  });
});
