/**
 * The NestJS module's `GET /chat/sse?q=…` (`EventSource`), `POST /chat/token` and `GET /chat/sse?token=…`: the
 * statuses, headers and bodies of the Express router (the reference, started beside it with the same options), and
 * the module's `log` option.
 */
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog.js';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import type { ChatfluxModuleConfig } from '../../src/nestjs/chatflux.interfaces.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { fetchSseToken } from '../helpers/fetchSseToken.js';
import { holdSseStream } from '../helpers/holdSseStream.js';
import { rawRequest } from '../helpers/rawRequest.js';
import { visibleResponse as visible } from '../helpers/visibleResponse.js';
import { EVENT_SOURCE_DONE } from '../helpers/wireAssertions.js';
import { startExpressRouter, startNestApp } from './startNestApp.js';

const KEY = 'nest-token-suite-key-0123456789a';
const AUTH = { Authorization: `Bearer ${KEY}` };
const Q = encodeURIComponent(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }));

let emulator: Emulator;
const closers: Array<() => Promise<void>> = [];
const logs: ChatRequestLog[] = [];
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 3 });
});
afterAll(() => emulator.close());
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  logs.length = 0;
});

/** The module's controller and the Express router, with the same options. */
const serve = async (config: Partial<ChatfluxModuleConfig> = {}): Promise<{ nest: string; router: string }> => {
  const client = { baseUrl: emulator.url, model: 'deepseek-chat', retry: false as const };
  const options = { apiKeys: [KEY], heartbeatMs: 0, ...config };
  const nest = await startNestApp({
    imports: [ChatfluxModule.forRoot({ client, routes: true, ...options, log: (entry) => logs.push(entry) })],
  });
  closers.push(() => nest.close());
  const router = await startExpressRouter({ client, ...options });
  closers.push(() => router.close());
  return { nest: nest.url, router: router.url };
};

const getToken = (url: string): Promise<{ token: string; expiresAt: string }> => fetchSseToken(url, KEY);

describe('ChatfluxModule routes: GET /chat/sse, POST /chat/token', () => {
  it('tells a finished EventSource not to reconnect, as the router: the final frame, then 204 for its reconnect', async () => {
    const urls = await serve();
    const [n, r] = await Promise.all([urls.nest, urls.router].map((url) => rawRequest(`${url}/chat/sse?q=${Q}`, { headers: AUTH })));
    expect(n!.body.endsWith(EVENT_SOURCE_DONE)).toBe(true);
    expect(visible(n!)).toEqual(visible(r!));
    const before = emulator.requests.length;
    const reconnect = { 'Last-Event-ID': 'done' }; // no key needed: nothing is served
    const [n204, r204] = await Promise.all([urls.nest, urls.router].map((url) => rawRequest(`${url}/chat/sse?q=${Q}`, { headers: reconnect })));
    expect(n204!.status).toBe(204);
    expect(visible(n204!)).toEqual(visible(r204!));
    expect(emulator.requests.length).toBe(before);
    expect(logs.map((entry) => [entry.method, entry.endpoint, entry.status])).toEqual([
      ['GET', '/chat/sse', 200],
      ['GET', '/chat/sse', 204],
    ]);
  });

  it('serves GET /chat/sse?q= with the key, and refuses it without, as the router', async () => {
    const urls = await serve();
    const [n, r] = await Promise.all([urls.nest, urls.router].map((url) => rawRequest(`${url}/chat/sse?q=${Q}`, { headers: AUTH })));
    expect(n!.status).toBe(200);
    expect(n!.body).toContain('data: [DONE]');
    expect(visible(n!)).toEqual(visible(r!));
    const [n401, r401] = await Promise.all([urls.nest, urls.router].map((url) => rawRequest(`${url}/chat/sse?q=${Q}`)));
    expect(n401!.status).toBe(401);
    expect(visible(n401!)).toEqual(visible(r401!));
    const [nTok, rTok] = await Promise.all([urls.nest, urls.router].map((url) => rawRequest(`${url}/chat/token`, { method: 'POST' })));
    expect(nTok!.status).toBe(401);
    expect(visible(nTok!)).toEqual(visible(rTok!));
    expect(logs.map((entry) => [entry.method, entry.endpoint, entry.status])).toEqual([
      ['GET', '/chat/sse', 200],
      ['GET', '/chat/sse', 401],
    ]);
  });

  it('answers a token that GET /chat/sse takes in place of the key; forged or expired: the router’s 401', async () => {
    const urls = await serve({ tokenTtlMs: 400 });
    const { token, expiresAt } = await getToken(urls.nest);
    expect(token).not.toContain(KEY);
    expect(Date.parse(expiresAt)).toBeLessThan(Date.now() + 1000);
    const routerToken = (await getToken(urls.router)).token;
    const n = await rawRequest(`${urls.nest}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    const r = await rawRequest(`${urls.router}/chat/sse?q=${Q}&token=${encodeURIComponent(routerToken)}`);
    expect(n.status).toBe(200);
    expect(visible(n)).toEqual(visible(r));
    // the router's token is signed with another (random) secret: forged for the module
    const reference = await rawRequest(`${urls.router}/chat/sse?q=${Q}&token=not-a-token`);
    expect(reference.status).toBe(401);
    expect(visible(await rawRequest(`${urls.nest}/chat/sse?q=${Q}&token=${encodeURIComponent(routerToken)}`))).toEqual(visible(reference));
    expect(visible(await rawRequest(`${urls.nest}/chat/sse?q=${Q}&token=${token}&token=${token}`))).toEqual(visible(reference));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(visible(await rawRequest(`${urls.nest}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`))).toEqual(visible(reference));
    expect(JSON.stringify(logs)).not.toContain(token);
  });

  it('counts a token as the client of its key for the per-client limit', async () => {
    const urls = await serve({ maxConcurrentPerClient: 1 });
    const { token } = await getToken(urls.nest);
    const long = await holdSseStream(urls.nest, AUTH);
    const res = await rawRequest(`${urls.nest}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(429);
    expect(res.body).toContain('"code":"concurrency_limit"');
    await long.end();
  });

  it('does not serve POST /chat/token when the endpoints are open (404, as the router)', async () => {
    const urls = await serve({ apiKeys: [] });
    expect((await rawRequest(`${urls.nest}/chat/token`, { method: 'POST' })).status).toBe(404);
    expect((await rawRequest(`${urls.router}/chat/token`, { method: 'POST' })).status).toBe(404);
    expect((await rawRequest(`${urls.nest}/chat/sse?q=${Q}`)).status).toBe(200);
  });
});
