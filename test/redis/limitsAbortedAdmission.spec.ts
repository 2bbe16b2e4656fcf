/**
 * A client that goes away while its admission is still being decided by the shared store (Redis slow: `CLIENT PAUSE`)
 * must not keep the place it is given afterwards: its response closed before the place was held, so nothing would
 * ever free it (and its renewal would keep it alive for good). Nor must an admission that timed out while Redis still
 * ran it (a slow reply): the request was refused or admitted by the failure policy, so the place, the request and the
 * tokens Redis took for it are given back. Express (node) and Hono (web), a real redis-server.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { createChatClient } from '../../src/client/createChatClient';
import { chatRouter } from '../../src/express/chatRouter';
import { countMessageTokens } from '../../src/serve/countMessageTokens';
import type { RateLimitsConfig } from '../../src/serve/RateLimitsConfig';
import { createRedisRateLimitStore } from '../../src/redis/createRedisRateLimitStore';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { startRedis, type TestRedis } from '../helpers/startRedis';
import { startHonoChat } from '../web/startHonoChat';

const KEY = 'aborted-admission-key-0123456789';
const AUTH = { Authorization: `Bearer ${KEY}` };
const ask = { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hi' }] };
const PAUSE_MS = 800;

let redis: TestRedis;
let admin: ReturnType<typeof createClient>;
let emulator: Emulator;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedis();
  admin = createClient({ url: redis.url, RESP: 2 });
  admin.on('error', () => undefined);
  await admin.connect();
  emulator = await startEmulator({ dialect: 'deepseek', seed: 7 });
});
afterAll(async () => {
  for (const close of closers) await close();
  await admin.close();
  await redis.stop();
  await emulator.close();
});

const startBoth = async (limits: RateLimitsConfig, commandTimeoutMs = 5000): Promise<Array<[string, string]>> => {
  const made = () => {
    const client = createChatClient({ baseUrl: emulator.url, apiKey: 'sk-up', model: 'deepseek-chat', retry: false });
    const store = createRedisRateLimitStore({ url: redis.url, commandTimeoutMs, keyPrefix: `t${closers.length}:` });
    closers.push(() => client.close(), () => store.close());
    return { client, apiKeys: [KEY], heartbeatMs: 0, limits: { ...limits, store } };
  };
  const hono = await startHonoChat(made());
  const app = express();
  app.use(chatRouter(made()));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  closers.push(hono.close, () => new Promise((resolve) => server.close(() => resolve())));
  return [
    ['node', `http://127.0.0.1:${(server.address() as AddressInfo).port}`],
    ['web', hono.url],
  ];
};

describe.each<[string, RateLimitsConfig]>([
  ['requests running at once', { maxConcurrent: 1 }],
  ['tokens per minute and running at once (admitted once the body is read)', { maxConcurrent: 1, tokensPerMinute: 1_000_000 }],
])('limits: a client gone while its admission is decided (%s)', (_name, limits) => {
  it('does not keep its place: the next request of the key is admitted', async () => {
    for (const [transport, url] of await startBoth(limits)) {
      expect([transport, (await rawRequest(`${url}/chat/json`, { headers: AUTH, body: ask })).status]).toEqual([transport, 200]); // connected, place freed
      await admin.sendCommand(['CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL']);
      const gone = new AbortController();
      const request = rawRequest(`${url}/chat/stream`, { headers: AUTH, body: ask, signal: gone.signal });
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS / 4));
      gone.abort(); // while Redis holds the admission
      await request;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS * 1.5)); // Redis answers; the admission is decided
      const next = await rawRequest(`${url}/chat/json`, { headers: AUTH, body: ask });
      expect([transport, next.status, next.status === 200 ? '' : next.body]).toEqual([transport, 200, '']);
    }
  });
});

describe('limits: an admission that timed out while Redis ran it (a slow reply)', () => {
  const timedOut = async (url: string, limits: RateLimitsConfig): Promise<void> => {
    await admin.sendCommand(['CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL']);
    const refused = await rawRequest(`${url}/chat/json`, { headers: AUTH, body: ask }); // past the 100 ms command timeout
    expect([refused.status, limits.onStoreFailure]).toEqual([limits.onStoreFailure === 'closed' ? 503 : 200, limits.onStoreFailure]);
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS * 1.5)); // Redis ran the admission once the pause ended
  };

  it('holds no place for the refused request (closed: 503): the next request of the key limited to one is admitted', async () => {
    const limits: RateLimitsConfig = { maxConcurrent: 1, onStoreFailure: 'closed', onStoreError: () => undefined };
    for (const [transport, url] of await startBoth(limits, 100)) {
      await timedOut(url, limits);
      const next = await rawRequest(`${url}/chat/json`, { headers: AUTH, body: ask });
      expect([transport, next.status, next.status === 200 ? '' : next.body]).toEqual([transport, 200, '']);
    }
  });

  it('charges no request nor tokens for it in Redis (local policy: admitted by this process\'s share instead): the next admission counts from whole', async () => {
    const limits: RateLimitsConfig = { requestsPerMinute: 10, tokensPerDay: 100_000, reserveOutputTokens: 100, onStoreFailure: 'local', onStoreError: () => undefined };
    for (const [transport, url] of await startBoth(limits, 100)) {
      await timedOut(url, limits);
      const next = await rawRequest(`${url}/chat/json`, { headers: AUTH, body: { ...ask, max_tokens: 100 } });
      expect(next.status).toBe(200);
      const reserved = countMessageTokens(ask as never).input_tokens + 100; // this one's reservation: its prompt + max_tokens
      const left = Number(/"budget";r=(\d+)/.exec(String(next.headers['ratelimit']))?.[1]);
      expect([transport, next.headers['x-ratelimit-remaining-requests'], 100_000 - left]).toEqual([transport, '9', reserved]); // not 8, not two reservations
    }
  });
});
