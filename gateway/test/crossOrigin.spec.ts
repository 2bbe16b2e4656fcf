/**
 * The gateway's cross-origin policy: no cross-origin access by default (no CORS headers; preflights answered without
 * them), `GET /chat/sse` refused to pages of other sites (it would spend tokens of an open gateway), and the origins
 * of `CHATFLUX_CORS_ORIGINS` allowed both.
 */
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../../test/helpers/rawRequest';
import { expectErrorBeforeCommit } from '../../test/helpers/wireAssertions';

const ALLOWED = 'https://app.example.com';
const EVIL = 'https://evil.example.net';

let emulator: Emulator;
let gateway: RunningGateway;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 6 });
  const config = loadGatewayConfig({ PORT: '0', CHATFLUX_BASE_URL: emulator.url, CHATFLUX_MODEL: 'deepseek-chat', CHATFLUX_CORS_ORIGINS: ALLOWED });
  gateway = await startGateway(config, { log: () => undefined });
});
afterAll(async () => {
  await gateway.close(0);
  await emulator.close();
});

describe('cross-origin policy', () => {
  it('a GET /chat/sse from another site is a 403 in SSE, and nothing goes upstream', async () => {
    const before = emulator.requests.length;
    const res = await rawRequest(`${gateway.url}/chat/sse`, { headers: { 'Sec-Fetch-Site': 'cross-site', Origin: EVIL } });
    expectErrorBeforeCommit(res, '/chat/sse', 403, 'forbidden');
    const noOrigin = await rawRequest(`${gateway.url}/chat/sse`, { headers: { 'Sec-Fetch-Site': 'cross-site' } }); // an <img>, a link
    expectErrorBeforeCommit(noOrigin, '/chat/sse', 403, 'forbidden');
    expect(emulator.requests.length).toBe(before);
  });

  it('same-origin pages, clients that are not browsers, and allowed origins are served', async () => {
    const cases: Array<Record<string, string>> = [{ 'Sec-Fetch-Site': 'same-origin' }, {}, { 'Sec-Fetch-Site': 'cross-site', Origin: ALLOWED }];
    for (const headers of cases) {
      const res = await rawRequest(`${gateway.url}/chat/sse`, { headers });
      expect(res.status).toBe(200);
      expect(res.body).toContain('data: [DONE]');
    }
  });

  it('CORS: an allowed origin gets its headers and its preflight; another gets neither', async () => {
    const preflight = (origin: string) =>
      rawRequest(`${gateway.url}/chat/sse`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
      });
    const ok = await preflight(ALLOWED);
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(ok.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    const refused = await preflight(EVIL);
    expect(refused.status).toBeLessThan(300); // answered (Express's own OPTIONS answer), without CORS headers
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    const post = await rawRequest(`${gateway.url}/chat/json`, { body: { messages: [{ role: 'user', content: 'hi' }] }, headers: { Origin: EVIL } });
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('CORS: a page of an allowed origin can read Retry-After (a 429 or 503 says when to come back)', async () => {
    const post = await rawRequest(`${gateway.url}/chat/json`, { body: { messages: [{ role: 'user', content: 'hi' }] }, headers: { Origin: ALLOWED } });
    expect(post.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(post.headers['access-control-expose-headers']).toLowerCase().split(/\s*,\s*/)).toContain('retry-after');
  });

  it('CORS: a page of an allowed origin can read the rate-limit headers (x-ratelimit-*, RateLimit, RateLimit-Policy, retry-after-ms, x-should-retry) of an answer and of a 429', async () => {
    const limited = await startGateway(
      loadGatewayConfig({
        PORT: '0',
        CHATFLUX_BASE_URL: emulator.url,
        CHATFLUX_MODEL: 'deepseek-chat',
        CHATFLUX_CORS_ORIGINS: ALLOWED,
        CHATFLUX_REQUESTS_PER_MINUTE: '1',
        CHATFLUX_TOKENS_PER_MINUTE: '1000000',
      }),
      { log: () => undefined },
    );
    try {
      const body = { messages: [{ role: 'user', content: 'hi' }] };
      const readable = (headers: Record<string, unknown>): string[] => String(headers['access-control-expose-headers']).toLowerCase().split(/\s*,\s*/);
      const limitNames = (headers: Record<string, unknown>): string[] =>
        Object.keys(headers).filter((name) => /^(x-ratelimit-|ratelimit|retry-after|x-should-retry)/i.test(name));
      const answered = await rawRequest(`${limited.url}/chat/json`, { body, headers: { Origin: ALLOWED } });
      expect(answered.status).toBe(200);
      expect(limitNames(answered.headers)).toEqual(expect.arrayContaining(['x-ratelimit-limit-requests', 'x-ratelimit-remaining-tokens', 'ratelimit', 'ratelimit-policy']));
      expect(readable(answered.headers)).toEqual(expect.arrayContaining(limitNames(answered.headers)));
      const refused = await rawRequest(`${limited.url}/chat/json`, { body, headers: { Origin: ALLOWED } });
      expect(refused.status).toBe(429);
      expect(limitNames(refused.headers)).toEqual(expect.arrayContaining(['retry-after', 'retry-after-ms', 'x-ratelimit-reset-requests']));
      expect(readable(refused.headers)).toEqual(expect.arrayContaining([...limitNames(refused.headers), 'x-should-retry', 'x-ratelimit-limit-tokens', 'x-ratelimit-reset-tokens']));
    } finally {
      await limited.close(0);
    }
  });

  it('CORS: a page of an allowed origin can read Chatflux-Stream-Id and send Last-Event-ID (to resume an answer)', async () => {
    const post = await rawRequest(`${gateway.url}/chat/sse`, { body: { messages: [{ role: 'user', content: 'hi' }] }, headers: { Origin: ALLOWED } });
    expect(String(post.headers['access-control-expose-headers']).toLowerCase().split(/\s*,\s*/)).toEqual(expect.arrayContaining(['chatflux-stream-id', 'chatflux-resumable']));
    expect(post.headers['chatflux-stream-id']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const preflight = await rawRequest(`${gateway.url}/chat/sse`, {
      method: 'OPTIONS',
      headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'last-event-id' },
    });
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('last-event-id');
  });

  it('every response says Vary: Origin, whatever the Origin (allowed, refused, absent): a shared cache keeps them apart', async () => {
    const body = { messages: [{ role: 'user', content: 'hi' }] };
    const preflight = { 'Access-Control-Request-Method': 'POST' };
    const cases: Array<[string, string, Parameters<typeof rawRequest>[1]]> = [];
    for (const [who, origin] of [['allowed', { Origin: ALLOWED }], ['refused', { Origin: EVIL }], ['absent', {}]] as const) {
      cases.push(
        [who, '/chat/json', { body, headers: origin }],
        [who, '/chat/sse', { headers: origin }],
        [who, '/chat/sse', { method: 'OPTIONS', headers: { ...origin, ...preflight } }],
        [who, '/chat/sse', { headers: { ...origin, 'Sec-Fetch-Site': 'cross-site' } }], // the 403, unless allowed
        [who, '/v1/models', { headers: origin }],
        [who, '/healthz', { headers: origin }],
        [who, '/no-such-path', { headers: origin }],
      );
    }
    const seen = await Promise.all(
      cases.map(async ([who, path, options]) => {
        const res = await rawRequest(`${gateway.url}${path}`, options);
        const vary = String(res.headers['vary'] ?? '').toLowerCase().split(/\s*,\s*/);
        return `${who} ${options?.method ?? (options?.body === undefined ? 'GET' : 'POST')} ${path} ${res.status}: ${vary.includes('origin') ? 'Vary: Origin' : 'no Vary: Origin'}`;
      }),
    );
    expect(seen.filter((line) => !line.endsWith(': Vary: Origin'))).toEqual([]);
    expect(seen.some((line) => line.startsWith('refused GET /chat/sse 403'))).toBe(true);
  });

  it('by default no origin is allowed', async () => {
    const plain = await startGateway({ ...loadGatewayConfig({ CHATFLUX_BASE_URL: emulator.url }), port: 0 }, { log: () => undefined });
    try {
      const res = await rawRequest(`${plain.url}/chat/sse`, { method: 'OPTIONS', headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'POST' } });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close(0);
    }
  });

  it('CHATFLUX_CORS_ORIGINS takes origins only', () => {
    expect(() => loadGatewayConfig({ CHATFLUX_CORS_ORIGINS: 'https://a.example.com/path' })).toThrow(/CHATFLUX_CORS_ORIGINS/);
  });
});
