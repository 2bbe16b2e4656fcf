/**
 * Per-key limits across instances (issue #31, first slice), over real processes: gateway programs in front of one
 * upstream emulator, sharing one redis-server, configured by a config file (`limits`, per key with defaults) and the
 * CHATFLUX_* variables. Concurrency and requests per minute hold across instances, the headers reach streams before
 * their first byte, the openai SDK's retries honour the 429's hints, a killed process's place frees itself within its
 * TTL, an admission waits for a slow Redis as long as CHATFLUX_LIMITS_STORE_TIMEOUT_MS says, and a Redis outage under
 * the `closed` policy is a 503 that ends once Redis is back.
 */
import { connect } from 'node:net';
import OpenAI from 'openai';
import { createClient } from 'redis';
import { rawRequest, type RawResponse } from '../../test/helpers/rawRequest';
import { useGatewaysOnRedis, type RedisGateway as Gateway } from '../../test/helpers/useGatewaysOnRedis';

const KEY = 'limits-gateway-key-0123456789';
const RPM_KEY = 'limits-rpm-key-0123456789';
const SDK_KEY = 'limits-sdk-key-0123456789';
const KILL_KEY = 'limits-kill-key-0123456789';
const UPSTREAM_KEY = 'sk-limits-upstream-key-42';
const PLACE_TTL_MS = 1500;
const PAUSE_MS = 2500;
const auth = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });
const ask = (scenario: string): Record<string, unknown> => ({ model: `deepseek-chat#${scenario}`, messages: [{ role: 'user', content: 'Hello, world!' }] });
const CONFIG = `
limits:
  maxConcurrent: 2
  requestsPerMinute: 1000
  perKey:
    LIMITS_RPM_KEY: { requestsPerMinute: 6, maxConcurrent: 100 }
    LIMITS_SDK_KEY: { requestsPerMinute: 30, maxConcurrent: 100 }
    LIMITS_KILL_KEY: { maxConcurrent: 1 }
`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A stream held open on `url` until `stop()`: `admitted` resolves with its status once its headers came. */
const hold = (url: string, key: string): { admitted: Promise<number>; stop(): Promise<RawResponse> } => {
  const controller = new AbortController();
  let admit: (status: number) => void = () => undefined;
  const admitted = new Promise<number>((resolve) => (admit = resolve));
  const done = rawRequest(`${url}/chat/stream`, { headers: auth(key), body: ask('tokens=400;pace=25'), signal: controller.signal, onHeaders: (status) => admit(status) });
  void done.then((res) => admit(res.status));
  return {
    admitted,
    stop: () => {
      controller.abort();
      return done;
    },
  };
};

/** One request over a raw socket: the response's head, and its bytes up to the first frame matching `first`. */
const rawHead = (url: string, path: string, key: string, body: unknown, first: RegExp): Promise<{ head: string; firstAt: number; text: string }> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const payload = JSON.stringify(body);
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
      );
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (piece: string) => {
      text += piece;
      const end = text.indexOf('\r\n\r\n');
      const found = end < 0 ? -1 : text.slice(end).search(first);
      if (found >= 0) {
        socket.destroy();
        resolve({ head: text.slice(0, end), firstAt: end + found, text });
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed before a frame: ${text.slice(0, 500)}`)));
  });

describe('per-key limits across gateway instances, shared through one redis-server', () => {
  const gateways = useGatewaysOnRedis({
    emulator: { seed: 31, apiKey: UPSTREAM_KEY },
    configFile: CONFIG,
    env: {
      CHATFLUX_GATEWAY_KEYS: [KEY, RPM_KEY, SDK_KEY, KILL_KEY].join(','),
      LIMITS_RPM_KEY: RPM_KEY,
      LIMITS_SDK_KEY: SDK_KEY,
      LIMITS_KILL_KEY: KILL_KEY,
      CHATFLUX_RESUMABLE: 'false',
    },
  });
  let a: Gateway;
  let b: Gateway;
  beforeAll(async () => {
    [a, b] = await Promise.all([gateways.start(), gateways.start()]);
  }, 60_000);

  it('refuses the third concurrent stream of a key limited to 2, wherever it lands, in each endpoint\'s format, then admits once one ends', async () => {
    const first = hold(a.url, KEY);
    const second = hold(b.url, KEY);
    expect(await first.admitted).toBe(200);
    expect(await second.admitted).toBe(200);
    try {
      const onA = await rawRequest(`${a.url}/chat/stream`, { headers: auth(KEY), body: ask('tokens=5') });
      const onB = await rawRequest(`${b.url}/chat/stream`, { headers: auth(KEY), body: ask('tokens=5') });
      for (const refused of [onA, onB]) {
        expect(refused.status).toBe(429);
        expect(refused.headers['retry-after']).toBe('1');
        expect(refused.headers['retry-after-ms']).toBe('1000');
        expect(refused.headers['ratelimit-policy']).toBe('"requests";q=1000;w=60, "concurrency";q=2');
        expect(refused.headers['ratelimit']).toMatch(/"concurrency";r=0$/);
        expect(JSON.parse(refused.body)).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' }, done: true });
      }
      const json = await rawRequest(`${b.url}/chat/json`, { headers: auth(KEY), body: ask('tokens=5') });
      expect(json.status).toBe(429);
      expect(JSON.parse(json.body)).toEqual({ error: expect.objectContaining({ code: 'rate_limit_exceeded', type: 'rate_limit_error' }) });
      const sse = await rawRequest(`${a.url}/chat/sse`, { headers: auth(KEY), body: ask('tokens=5') });
      expect(sse.status).toBe(429);
      expect(sse.body).toMatch(/^event: error\ndata: \{.*"code":"rate_limit_exceeded".*\}\n\ndata: \[DONE\]\n\n$/);
      const openai = await rawRequest(`${a.url}/v1/chat/completions`, { headers: auth(KEY), body: { ...ask('tokens=5'), stream: true } });
      expect(openai.status).toBe(429);
      expect(JSON.parse(openai.body)).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
      expect(gateways.emulator.requests.filter((request) => request.body !== undefined).length).toBeGreaterThanOrEqual(2);
    } finally {
      await first.stop();
    }
    // the ended stream's place is released (one ZREM): the next stream is admitted, on either instance
    let status = 0;
    for (const deadline = Date.now() + 5000; status !== 200 && Date.now() < deadline; ) {
      status = (await rawRequest(`${b.url}/chat/stream`, { headers: auth(KEY), body: ask('tokens=3') })).status;
      if (status !== 200) await sleep(50);
    }
    expect(status).toBe(200);
    await second.stop();
  }, 30_000);

  it('holds requests per minute across two instances: a burst of 12 alternating requests gets the key\'s 6, counted down on both', async () => {
    const started = Date.now();
    const results: RawResponse[] = [];
    for (let i = 0; i < 12; i++) results.push(await rawRequest(`${(i % 2 === 0 ? a : b).url}/chat/json`, { headers: auth(RPM_KEY), body: ask('tokens=1') }));
    const elapsed = Date.now() - started;
    const admitted = results.filter((res) => res.status === 200);
    // GCRA: 6 at once, then one every 10 s
    expect(admitted.length).toBeGreaterThanOrEqual(6);
    expect(admitted.length).toBeLessThanOrEqual(6 + Math.floor(elapsed / 10_000));
    expect(admitted.slice(0, 6).map((res) => res.headers['x-ratelimit-remaining-requests'])).toEqual(['5', '4', '3', '2', '1', '0']);
    for (const res of admitted) expect(res.headers['x-ratelimit-limit-requests']).toBe('6');
    const refused = results.find((res) => res.status === 429);
    expect(Number(refused?.headers['retry-after-ms'])).toBeGreaterThan(0);
    expect(Number(refused?.headers['retry-after-ms'])).toBeLessThanOrEqual(10_000);
    expect(refused?.headers['retry-after']).toBe(String(Math.ceil(Number(refused?.headers['retry-after-ms']) / 1000)));
  }, 30_000);

  it.each([
    ['/chat/sse', {}, /^data: /m],
    ['/chat/stream', {}, /^\{"message"/m],
    ['/v1/chat/completions', { stream: true }, /^data: /m],
  ])('sends the rate-limit headers on %s before its first frame (raw socket)', async (path, extra, firstFrame) => {
    const { head, firstAt } = await rawHead(a.url, path, KEY, { ...ask('tokens=20;pace=5'), ...extra }, firstFrame);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(firstAt).toBeGreaterThan(head.length);
    expect(head).toMatch(/\r\nx-ratelimit-limit-requests: 1000\r\n/i);
    expect(head).toMatch(/\r\nx-ratelimit-remaining-requests: \d+\r\n/i);
    expect(head).toMatch(/\r\nx-ratelimit-reset-requests: \d+(ms|(\.\d+)?s)\r\n/i);
    expect(head).toMatch(/\r\nRateLimit-Policy: "requests";q=1000;w=60, "concurrency";q=2\r\n/i);
    expect(head).toMatch(/\r\nRateLimit: "requests";r=\d+;t=\d+, "concurrency";r=[01]\r\n/i);
  }, 30_000);

  it('lets the openai SDK with retries honour the 429\'s retry-after-ms and succeed after it', async () => {
    // The key's 30 requests at once: one per 2 s comes back (30 a minute), so a fill slower than 2 s — 30 requests one
    // after another on a busy machine — would leave the SDK's first request a place and no 429 to honour.
    const fill = await Promise.all(Array.from({ length: 30 }, (_, i) => rawRequest(`${(i % 2 === 0 ? a : b).url}/chat/json`, { headers: auth(SDK_KEY), body: ask('tokens=1') })));
    for (const res of fill) expect(res.status).toBe(200);
    const seen: Array<{ status: number; retryAfterMs: string | null; at: number }> = [];
    const client = new OpenAI({
      baseURL: `${a.url}/v1`,
      apiKey: SDK_KEY,
      maxRetries: 2,
      timeout: 20_000,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        seen.push({ status: response.status, retryAfterMs: response.headers.get('retry-after-ms'), at: Date.now() });
        return response;
      },
    });
    const completion = await client.chat.completions.create({ model: 'deepseek-chat#tokens=2', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]?.message.content).toEqual(expect.any(String));
    expect(seen.map((entry) => entry.status)).toEqual([429, 200]);
    const waited = (seen[1]?.at ?? 0) - (seen[0]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(Number(seen[0]?.retryAfterMs) - 50); // it waited what it was told (one interval: 2 s)
    expect(Number(seen[0]?.retryAfterMs)).toBeLessThanOrEqual(2000);
  }, 40_000);

  it('frees the place of a process killed while holding it, within the place\'s TTL', async () => {
    const c = await gateways.start({ CHATFLUX_LIMITS_PLACE_TTL_MS: String(PLACE_TTL_MS) });
    const held = hold(c.url, KILL_KEY);
    expect(await held.admitted).toBe(200);
    expect((await rawRequest(`${a.url}/chat/stream`, { headers: auth(KILL_KEY), body: ask('tokens=2') })).status).toBe(429);
    c.child.kill('SIGKILL');
    const killedAt = Date.now();
    await c.exited;
    void held.stop();
    expect((await rawRequest(`${a.url}/chat/stream`, { headers: auth(KILL_KEY), body: ask('tokens=2') })).status).toBe(429); // no release: held until its TTL
    let status = 429;
    while (status === 429 && Date.now() - killedAt < PLACE_TTL_MS + 5000) {
      await sleep(100);
      status = (await rawRequest(`${a.url}/chat/stream`, { headers: auth(KILL_KEY), body: ask('tokens=2') })).status;
    }
    expect(status).toBe(200);
    expect(Date.now() - killedAt).toBeLessThan(PLACE_TTL_MS + 5000);
  }, 60_000);

  it('waits for a slow Redis as long as CHATFLUX_LIMITS_STORE_TIMEOUT_MS says: admitted once a 2.5 s pause ends, where the default 250 ms refuses (closed policy)', async () => {
    const closed = { CHATFLUX_LIMITS_ON_STORE_FAILURE: 'closed' };
    const [patient, hasty] = await Promise.all([gateways.start({ ...closed, CHATFLUX_LIMITS_STORE_TIMEOUT_MS: '30000' }), gateways.start(closed)]);
    for (const gateway of [patient, hasty]) expect((await rawRequest(`${gateway.url}/chat/json`, { headers: auth(KEY), body: ask('tokens=1') })).status).toBe(200);
    const admin = createClient({ url: gateways.redis.url, RESP: 2 });
    admin.on('error', () => undefined);
    await admin.connect();
    try {
      const paused = Date.now();
      await admin.sendCommand(['CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL']); // Redis answers no client for 2.5 s: 10× the default timeout
      const [waited, refused] = await Promise.all(
        [patient, hasty].map(async (gateway) => {
          const res = await rawRequest(`${gateway.url}/chat/json`, { headers: auth(KEY), body: ask('tokens=1') });
          return { ...res, afterMs: Date.now() - paused };
        }),
      );
      expect(refused?.status).toBe(503); // the baseline: the pause outlasts the default timeout
      expect(JSON.parse(refused?.body ?? '')).toEqual({ error: expect.objectContaining({ code: 'limits_unavailable' }) });
      expect(waited?.status).toBe(200); // the configured 30 s reached the store: the admission waited for Redis
      expect(waited?.afterMs).toBeGreaterThanOrEqual(PAUSE_MS / 2); // and was decided once the pause was over
    } finally {
      await admin.sendCommand(['CLIENT', 'UNPAUSE']).catch(() => undefined);
      await admin.close();
    }
  }, 60_000);

  it('answers 503 limits_unavailable while Redis is down under the closed policy, counts it in /metrics, and limits again once Redis is back', async () => {
    const closed = await gateways.start({ CHATFLUX_LIMITS_ON_STORE_FAILURE: 'closed' });
    expect((await rawRequest(`${closed.url}/chat/json`, { headers: auth(KEY), body: ask('tokens=1') })).status).toBe(200);
    await gateways.redis.kill();
    try {
      const refused = await rawRequest(`${closed.url}/chat/json`, { headers: auth(KEY), body: ask('tokens=1') });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(JSON.parse(refused.body)).toEqual({ error: expect.objectContaining({ code: 'limits_unavailable', type: 'server_error' }) });
      const local = await rawRequest(`${a.url}/chat/json`, { headers: auth(KEY), body: ask('tokens=1') }); // A: the local policy
      expect(local.status).toBe(200);
      const metrics = await rawRequest(`${closed.url}/metrics`);
      expect(metrics.body).toMatch(/^chatflux_limits_store_failing(\{[^}]*\})? 1$/m);
      expect(metrics.body).toMatch(/^chatflux_limits_store_failures_total\{[^}]*chatflux_limits_policy="closed"[^}]*\} 1$/m);
    } finally {
      await gateways.redis.restart();
    }
    const back = Date.now();
    let status = 503;
    while (status === 503 && Date.now() - back < 5000) {
      status = (await rawRequest(`${closed.url}/chat/json`, { headers: auth(KEY), body: ask('tokens=1') })).status;
      if (status === 503) await sleep(20);
    }
    expect(status).toBe(200);
    expect(Date.now() - back).toBeLessThan(1000 + 1000); // reconnection backoff capped at 500 ms; a busy machine's slack
  }, 40_000);
});
