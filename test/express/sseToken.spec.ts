/**
 * `POST /chat/token` and `GET /chat/sse?token=…`: a browser's `EventSource` (which cannot send an Authorization
 * header) authenticates with a short-lived signed token instead of a long-lived key in its URL. The token is behind
 * the key, expires, cannot be forged, counts as the same client for the per-client limit, and never reaches a log.
 */
import { createHash } from 'node:crypto';
import { redactSecrets } from '../../src/core/redactSecrets';
import type { ChatRequestLog, ChatRouterConfig } from '../../src/express/chatRouter';
import { createMemoryStreamLog } from '../../src/store/createMemoryStreamLog';
import type { StreamLog } from '../../src/store/StreamLog';
import { fetchSseToken } from '../helpers/fetchSseToken';
import { forgedSseTokens } from '../helpers/forgedSseTokens';
import { holdSseStream } from '../helpers/holdSseStream';
import { rawRequest } from '../helpers/rawRequest';
import { startExpressChat } from '../helpers/startExpressChat';
import type { TestServer } from '../helpers/startServer';
import { useEmulatedClient } from '../helpers/useEmulatedClient';

const KEY = 'token-suite-key-0123456789abcdef';
const AUTH = { Authorization: `Bearer ${KEY}` };
const Q = encodeURIComponent(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }));

const upstream = useEmulatedClient();
let server: TestServer | undefined;
const logs: ChatRequestLog[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  logs.length = 0;
});

const serve = async (config: Partial<ChatRouterConfig> = {}): Promise<string> => {
  server = await startExpressChat({ client: upstream.client, apiKeys: [KEY], heartbeatMs: 0, log: (entry) => logs.push(entry), ...config });
  return server.url;
};

const getToken = (url: string): Promise<{ token: string; expiresAt: string }> => fetchSseToken(url, KEY);

describe('POST /chat/token', () => {
  it('is behind the key: 401 in the JSON error format without it', async () => {
    const url = await serve();
    const res = await rawRequest(`${url}/chat/token`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'unauthorized', type: 'authentication_error' } });
  });

  it('refuses a wrong key (401), and its token is no key anywhere but GET /chat/sse (401 in each endpoint\'s format)', async () => {
    const url = await serve();
    const wrong = await rawRequest(`${url}/chat/token`, { method: 'POST', headers: { Authorization: 'Bearer not-the-key' } });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body)).toMatchObject({ error: { code: 'unauthorized', type: 'authentication_error' } });
    const { token } = await getToken(url);
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });
    const json = { 'Content-Type': 'application/json' };
    for (const path of ['/chat/sse', '/chat/json']) {
      const res = await rawRequest(`${url}${path}?token=${encodeURIComponent(token)}`, { method: 'POST', headers: json, body });
      expect([path, res.status, res.headers['www-authenticate']]).toEqual([path, 401, 'Bearer']);
    }
    const asBearer = await rawRequest(`${url}/chat/sse?q=${Q}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(asBearer.status).toBe(401); // a token is not a key
    expect(asBearer.body).toContain('"code":"unauthorized"');
  });

  it('answers a short-lived token that GET /chat/sse takes in place of the Authorization header', async () => {
    const url = await serve();
    const before = Date.now();
    const { token, expiresAt } = await getToken(url);
    expect(token).not.toContain(KEY);
    const expires = Date.parse(expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 60_000);
    expect(expires).toBeLessThan(Date.now() + 60_000 + 1000);
    const res = await rawRequest(`${url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('data: [DONE]');
    // without either, still 401
    expect((await rawRequest(`${url}/chat/sse?q=${Q}`)).status).toBe(401);
    // the token is nowhere in the log
    expect(logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(logs)).not.toContain(token);
  });

  it('refuses a forged, malformed, repeated or expired token with 401 in the SSE error format', async () => {
    const url = await serve({ tokenTtlMs: 300 });
    const { token } = await getToken(url);
    for (const bad of forgedSseTokens(token)) {
      const res = await rawRequest(`${url}/chat/sse?q=${Q}&token=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.body).toMatch(/^event: error\n/);
      expect(res.body).toContain('"code":"unauthorized"');
      expect(res.body).toContain('POST /chat/token');
    }
    expect((await rawRequest(`${url}/chat/sse?q=${Q}&token=${token}&token=${token}`)).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const expired = await rawRequest(`${url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    expect(expired.status).toBe(401);
    expect(upstream.emulator.requests.filter((request) => request.status === 0)).toHaveLength(0);
  });

  it('tells nothing about its key: no plain hash of it in the token (a guessed key cannot be checked offline)', async () => {
    const url = await serve({ tokenSecret: 'a-token-secret-0123456789' });
    const { token } = await getToken(url);
    const digest = createHash('sha256').update(KEY, 'utf8').digest();
    const texts = [token, ...token.split('.').map((part) => Buffer.from(part, 'base64url').toString('utf8'))];
    for (const encoded of [digest.toString('base64url'), digest.toString('hex')]) {
      for (const text of texts) expect(text).not.toContain(encoded.slice(0, 16));
    }
  });

  it('refuses a token whose key was removed from apiKeys, though the secret is the same (401)', async () => {
    const secret = 'a-token-secret-0123456789';
    const other = 'another-key-of-this-suite-0123456';
    const before = await serve({ apiKeys: [KEY, other], tokenSecret: secret });
    const { token } = await fetchSseToken(before, other);
    expect((await rawRequest(`${before}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`)).status).toBe(200);
    await server?.close();
    const after = await serve({ apiKeys: [KEY], tokenSecret: secret }); // the same secret, the key removed
    const res = await rawRequest(`${after}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(401);
    expect(res.body).toContain('"code":"unauthorized"');
    await server?.close();
    // a token of a key still configured passes the restart
    const kept = await serve({ apiKeys: [KEY, other], tokenSecret: secret });
    const { token: ofKey } = await getToken(kept);
    await server?.close();
    const restarted = await serve({ apiKeys: [KEY], tokenSecret: secret });
    expect((await rawRequest(`${restarted}/chat/sse?q=${Q}&token=${encodeURIComponent(ofKey)}`)).status).toBe(200);
  });

  it('is reusable until it expires, by design (an EventSource reconnects with the same URL)', async () => {
    const url = await serve();
    const { token } = await getToken(url);
    for (let i = 0; i < 3; i++) expect((await rawRequest(`${url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`)).status).toBe(200);
  });

  it('resumes, once expired, only the answer it was valid at the start of (an EventSource reconnects with the same URL and Last-Event-ID): never a new one, nor one started after it expired', async () => {
    const url = await serve({ tokenTtlMs: 1000, resumable: true });
    const { token, expiresAt } = await getToken(url);
    const long = encodeURIComponent(JSON.stringify({ model: 'deepseek-chat#tokens=40;pace=10', messages: [{ role: 'user', content: 'hi' }] }));
    const at = `${url}/chat/sse?q=${long}&token=${encodeURIComponent(token)}`;
    const cut = new AbortController();
    let lastId = '';
    const first = await rawRequest(at, {
      signal: cut.signal,
      onPiece: (_text, soFar) => {
        const ids = [...soFar.matchAll(/^id: (.+:\d+)$/gm)].map((match) => match[1] ?? '');
        if (ids.length >= 3 && lastId === '') {
          lastId = ids[2] ?? '';
          cut.abort(); // the connection drops at its third event
        }
      },
    });
    expect(first.status).toBe(200);
    expect(lastId).toMatch(/^[\w-]+:2$/);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 200)); // expired
    const resumed = await rawRequest(at, { headers: { 'Last-Event-ID': lastId } });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatch(/^id: [\w-]+:3$/m); // the answer goes on after the last event it had
    expect(resumed.body).toMatch(/^id: done$/m);
    expect((await rawRequest(at)).status).toBe(401); // a new answer: refused
    // an answer started after the token expired (with the key), reconnected to with the token: refused
    const later = await rawRequest(`${url}/chat/sse?q=${Q}`, { headers: AUTH });
    const laterId = /^id: (.+:\d+)$/m.exec(later.body)?.[1] ?? '';
    expect(laterId).not.toBe('');
    expect((await rawRequest(at, { headers: { 'Last-Event-ID': laterId } })).status).toBe(401);
  });

  it('resumes, once expired, no answer started before it was issued (it was not valid at that answer\'s start)', async () => {
    const url = await serve({ tokenTtlMs: 1000, resumable: true });
    // an answer of the key, started (and logged) before the token exists
    const earlier = await rawRequest(`${url}/chat/sse?q=${Q}`, { headers: AUTH });
    const earlierId = /^id: (.+:\d+)$/m.exec(earlier.body)?.[1] ?? '';
    expect(earlierId).not.toBe('');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { token, expiresAt } = await getToken(url);
    const at = `${url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`;
    // valid, the token may read its key's answers: the grace is what is refused
    expect((await rawRequest(at, { headers: { 'Last-Event-ID': earlierId } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 200)); // expired
    const resumed = await rawRequest(at, { headers: { 'Last-Event-ID': earlierId } });
    expect(resumed.status).toBe(401);
    expect(resumed.body).toContain('"code":"unauthorized"');
  });

  it('answers a reconnect whose custom clientKey throws as any request it throws for, with its token valid or expired (no request left unanswered)', async () => {
    const clientKey = (req: { headers: Record<string, unknown> }): string => {
      const tenant = req.headers['x-tenant'];
      if (typeof tenant !== 'string') throw new Error('no tenant header');
      return `tenant:${tenant}`;
    };
    const url = await serve({ tokenTtlMs: 1000, resumable: true, clientKey });
    const { token, expiresAt } = await getToken(url);
    const at = `${url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`;
    const first = await rawRequest(at, { headers: { 'x-tenant': 'a' } });
    expect(first.status).toBe(200);
    const lastId = /^id: (.+:\d+)$/m.exec(first.body)?.[1] ?? '';
    expect(lastId).not.toBe('');
    const fresh = await rawRequest(at); // a new answer, the clientKey throwing: the status it is refused with
    expect(fresh.status).toBeGreaterThanOrEqual(400);
    const answered = (request: Promise<{ status: number }>): Promise<number> =>
      Promise.race([request.then((res) => res.status), new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5000).unref())]);
    expect(await answered(rawRequest(at, { headers: { 'Last-Event-ID': lastId } }))).toBe(fresh.status); // token valid
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 200)); // expired
    expect(await answered(rawRequest(at, { headers: { 'Last-Event-ID': lastId } }))).toBe(fresh.status);
    expect((await rawRequest(at, { headers: { 'Last-Event-ID': lastId, 'x-tenant': 'a' } })).status).toBe(200); // with it: resumed
  });

  it('refuses a reconnect with a forged token without a look at the stream log (no I/O for whoever asks)', async () => {
    const memory = createMemoryStreamLog();
    let metas = 0;
    const log: StreamLog = { ...memory, meta: (id) => (metas++, memory.meta(id)) };
    try {
      const url = await serve({ resumable: { log } });
      const { token } = await getToken(url);
      const first = await rawRequest(`${url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
      const lastId = /^id: (.+:\d+)$/m.exec(first.body)?.[1] ?? '';
      expect(lastId).not.toBe('');
      metas = 0;
      for (const bad of forgedSseTokens(token)) {
        const res = await rawRequest(`${url}/chat/sse?q=${Q}&token=${encodeURIComponent(bad)}`, { headers: { 'Last-Event-ID': lastId } });
        expect([bad, res.status]).toEqual([bad, 401]);
      }
      expect(metas).toBe(0);
    } finally {
      await server?.close();
      server = undefined;
      await memory.close();
    }
  });

  it('counts a token as the client of its key for the per-client limit', async () => {
    const url = await serve({ maxConcurrentPerClient: 1 });
    const { token } = await getToken(url);
    const long = await holdSseStream(url, AUTH);
    const res = await rawRequest(`${url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(429);
    expect(res.body).toContain('"code":"concurrency_limit"');
    await long.end();
  });

  it('is not served when the endpoints are open (no keys): a browser needs no token', async () => {
    const url = await serve({ apiKeys: [] });
    expect((await rawRequest(`${url}/chat/token`, { method: 'POST' })).status).toBe(404);
  });
});

describe('redactSecrets and tokens in URLs', () => {
  it('redacts the token query parameter of any URL it is given', () => {
    expect(redactSecrets('GET /chat/sse?q=%7B%7D&token=abc123.def456 200')).toBe(
      'GET /chat/sse?q=%7B%7D&token=[redacted] 200',
    );
    expect(redactSecrets('/chat/sse?token=abc123.def456&q=1')).toBe('/chat/sse?token=[redacted]&q=1');
    expect(redactSecrets('max_tokens=200')).toBe('max_tokens=200');
  });
});
