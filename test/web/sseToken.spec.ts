/**
 * The web handlers' `POST /chat/token` and `GET /chat/sse?token=…` (Hono on `@hono/node-server`), answered with the
 * statuses, headers and bodies of the Express router (the reference, started beside it with the same options).
 */
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog';
import type { WebChatHandlersConfig } from '../../src/web/WebChatHandlersConfig';
import { fetchSseToken } from '../helpers/fetchSseToken';
import { forgedSseTokens } from '../helpers/forgedSseTokens';
import { holdSseStream } from '../helpers/holdSseStream';
import { rawRequest } from '../helpers/rawRequest';
import { visibleResponse as visible } from '../helpers/visibleResponse';
import { startExpressChat } from '../helpers/startExpressChat';
import type { TestServer } from '../helpers/startServer';
import { useEmulatedClient } from '../helpers/useEmulatedClient';
import { startHonoChat, type HonoChat } from './startHonoChat';

const KEY = 'web-token-suite-key-0123456789ab';
const AUTH = { Authorization: `Bearer ${KEY}` };
const Q = encodeURIComponent(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }));

const upstream = useEmulatedClient();
let web: HonoChat | undefined;
let router: TestServer | undefined;
const logs: ChatRequestLog[] = [];
afterEach(async () => {
  await web?.close();
  await router?.close();
  web = router = undefined;
  logs.length = 0;
});

/** The web handlers (with the token route) and the Express router, with the same options. */
const serve = async (config: Partial<Omit<WebChatHandlersConfig, 'clientKey'>> = {}): Promise<{ web: string; router: string }> => {
  const options = { client: upstream.client, apiKeys: [KEY], heartbeatMs: 0, ...config };
  web = await startHonoChat({ ...options, log: (entry) => logs.push(entry) });
  router = await startExpressChat(options);
  return { web: web.url, router: router.url };
};

const getToken = (url: string): Promise<{ token: string; expiresAt: string }> => fetchSseToken(url, KEY);

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
    const reference = await rawRequest(`${urls.router}/chat/sse?q=${Q}&token=not-a-token`);
    expect(reference.status).toBe(401);
    for (const bad of forgedSseTokens(token)) {
      const res = await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${encodeURIComponent(bad)}`);
      expect(visible(res)).toEqual(visible(reference));
    }
    expect(visible(await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${token}&token=${token}`))).toEqual(visible(reference));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(visible(await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`))).toEqual(visible(reference));
    expect(upstream.emulator.requests.filter((request) => request.status === 0)).toHaveLength(0);
  });

  it('refuses a token whose key was removed from apiKeys (same secret) with the router’s 401', async () => {
    const secret = 'a-token-secret-0123456789';
    const other = 'another-web-key-0123456789abcdef';
    const before = await serve({ apiKeys: [KEY, other], tokenSecret: secret });
    const { token } = await fetchSseToken(before.web, other);
    expect((await rawRequest(`${before.web}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`)).status).toBe(200);
    await web?.close();
    await router?.close();
    const after = await serve({ apiKeys: [KEY], tokenSecret: secret });
    const [w, r] = await Promise.all([after.web, after.router].map((url) => rawRequest(`${url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`)));
    expect(w!.status).toBe(401);
    expect(visible(w!)).toEqual(visible(r!));
  });

  it('counts a token as the client of its key for the per-client limit (429 as the router)', async () => {
    const urls = await serve({ maxConcurrentPerClient: 1 });
    const { token } = await getToken(urls.web);
    const long = await holdSseStream(urls.web, AUTH);
    const res = await rawRequest(`${urls.web}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(429);
    expect(res.body).toContain('"code":"concurrency_limit"');
    await long.end();
  });

  it('answers HEAD /chat/sse?q= as the router: GET\'s checks, status and headers, no body, the upstream not called', async () => {
    const urls = await serve();
    const tokens = new Map(await Promise.all([urls.web, urls.router].map(async (url) => [url, (await getToken(url)).token] as const)));
    const before = upstream.emulator.requests.at(-1);
    for (const [path, headers, status] of [
      [`/chat/sse?q=${Q}`, AUTH, 200],
      [`/chat/sse?q=${Q}`, {}, 401],
      [`/chat/sse?q=${Q}&token=TOKEN`, {}, 200],
      [`/chat/sse?q=%7B`, AUTH, 400],
    ] as const) {
      const at = (url: string): string => `${url}${path.replace('TOKEN', encodeURIComponent(tokens.get(url)!))}`;
      const [w, r] = await Promise.all([urls.web, urls.router].map((url) => rawRequest(at(url), { method: 'HEAD', headers })));
      expect([path, w!.status]).toEqual([path, status]);
      expect(visible(w!)).toEqual(visible(r!));
      expect(w!.body).toBe('');
    }
    expect(upstream.emulator.requests.at(-1)).toBe(before);
  });

  it('answers 400 when the endpoints are open (no keys): there is no token to give', async () => {
    const urls = await serve({ apiKeys: [] });
    const res = await rawRequest(`${urls.web}/chat/token`, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'invalid_request' } });
    expect(res.body).toContain('needs no token');
  });
});
