/**
 * The web handlers' `POST /chat/token` and `GET /chat/sse?token=…` (Hono on `@hono/node-server`), answered with the
 * statuses, headers and bodies of the Express router (the reference, started beside it with the same options).
 */
import express from 'express';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { chatRouter } from '../../src/express/chatRouter';
import type { ChatRequestLog } from '../../src/node/ChatRequestLog';
import { createSseTokens } from '../../src/node/createSseTokens';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import type { WebChatHandlersConfig } from '../../src/web/WebChatHandlersConfig';
import { rawRequest, type RawResponse } from '../helpers/rawRequest';
import { startServer, type TestServer } from '../helpers/startServer';
import { startHonoChat, type HonoChat } from './startHonoChat';

const KEY = 'web-token-suite-key-0123456789ab';
const AUTH = { Authorization: `Bearer ${KEY}` };
const Q = encodeURIComponent(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }));

let emulator: Emulator;
let client: ChatClient;
let web: HonoChat | undefined;
let router: TestServer | undefined;
const logs: ChatRequestLog[] = [];
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 3 });
  client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
afterEach(async () => {
  await web?.close();
  await router?.close();
  web = router = undefined;
  logs.length = 0;
});

/** The web handlers (with the token route) and the Express router, with the same options. */
const serve = async (config: Partial<Omit<WebChatHandlersConfig, 'clientKey'>> = {}): Promise<{ web: string; router: string }> => {
  const options = { client, apiKeys: [KEY], heartbeatMs: 0, ...config };
  web = await startHonoChat({ ...options, log: (entry) => logs.push(entry) });
  const app = express();
  app.use(chatRouter(options));
  router = await startServer(app);
  return { web: web.url, router: router.url };
};

/** What both adapters must agree on: status, the headers the client sees, the body. */
const visible = (res: RawResponse): unknown => ({
  status: res.status,
  type: res.headers['content-type'],
  cache: res.headers['cache-control'],
  auth: res.headers['www-authenticate'],
  retry: res.headers['retry-after'],
  body: res.body,
});

const getToken = async (url: string): Promise<{ token: string; expiresAt: string }> => {
  const res = await rawRequest(`${url}/chat/token`, { method: 'POST', headers: AUTH });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  return JSON.parse(res.body) as { token: string; expiresAt: string };
};

describe('createChatHandlers: POST /chat/token and GET /chat/sse?token=', () => {
  it('refuses a request without the key as the router does (401, WWW-Authenticate, the JSON error body)', async () => {
    const urls = await serve();
    const [w, r] = await Promise.all([urls.web, urls.router].map((url) => rawRequest(`${url}/chat/token`, { method: 'POST' })));
    expect(visible(w!)).toEqual(visible(r!));
    expect(w!.status).toBe(401);
    expect(w!.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers a token that GET /chat/sse takes in place of the Authorization header, the same bytes as the router', async () => {
    const urls = await serve();
    const before = Date.now();
    const { token, expiresAt } = await getToken(urls.web);
    expect(token).not.toContain(KEY);
    expect(Date.parse(expiresAt)).toBeGreaterThanOrEqual(before + 60_000);
    expect(Date.parse(expiresAt)).toBeLessThan(Date.now() + 61_000);
    const routerToken = (await getToken(urls.router)).token;
    const w = await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    const r = await rawRequest(`${urls.router}/chat/sse?q=${Q}&token=${encodeURIComponent(routerToken)}`);
    expect(w.status).toBe(200);
    expect(w.body).toContain('data: [DONE]');
    expect(visible(w)).toEqual(visible(r));
    // without a key or a token: 401 in the SSE error format, as the router
    const [w401, r401] = await Promise.all([urls.web, urls.router].map((url) => rawRequest(`${url}/chat/sse?q=${Q}`)));
    expect(w401!.status).toBe(401);
    expect(visible(w401!)).toEqual(visible(r401!));
    expect(logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(logs)).not.toContain(token);
  });

  it('refuses a forged, malformed, repeated or expired token with the router’s 401', async () => {
    const urls = await serve({ tokenTtlMs: 300 });
    const { token } = await getToken(urls.web);
    const [payload, signature = ''] = token.split('.');
    const flipped = `${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    const foreign = createSseTokens({ secret: 'another-secret-0123456789' }).issue('key:someone-else').token;
    const reference = await rawRequest(`${urls.router}/chat/sse?q=${Q}&token=not-a-token`);
    expect(reference.status).toBe(401);
    for (const bad of [flipped, foreign, 'not-a-token', `${payload}.`, `${token}.${token}`]) {
      const res = await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${encodeURIComponent(bad)}`);
      expect(visible(res)).toEqual(visible(reference));
    }
    expect(visible(await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${token}&token=${token}`))).toEqual(visible(reference));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(visible(await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`))).toEqual(visible(reference));
    expect(emulator.requests.filter((request) => request.status === 0)).toHaveLength(0);
  });

  it('counts a token as the client of its key for the per-client limit (429 as the router)', async () => {
    const urls = await serve({ maxConcurrentPerClient: 1 });
    const { token } = await getToken(urls.web);
    const controller = new AbortController();
    let first!: () => void;
    const streaming = new Promise<void>((resolve) => (first = resolve));
    const long = rawRequest(`${urls.web}/chat/sse`, {
      body: { model: 'deepseek-chat#pace=50;tokens=200', messages: [{ role: 'user', content: 'long' }] },
      headers: AUTH,
      signal: controller.signal,
      onPiece: () => first(),
    });
    await streaming;
    const res = await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(429);
    expect(res.body).toContain('"code":"concurrency_limit"');
    controller.abort();
    await long;
  });

  it('answers 400 when the endpoints are open (no keys): there is no token to give', async () => {
    const urls = await serve({ apiKeys: [] });
    const res = await rawRequest(`${urls.web}/chat/token`, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'invalid_request' } });
    expect(res.body).toContain('needs no token');
  });
});
