/**
 * Bounded cost per request, and no client can slow the others, through the real gateway configured from its
 * environment: a `/chat/json` answer is capped (and its upstream aborted), a whole `/chat/json` request can have a
 * deadline, a request that finds every upstream connection busy gets a clear 503 instead of a silent queue, and one
 * client cannot run more than its share of requests.
 */
import { promptBound } from '../helpers/promptBound';
import { rawRequest, type RawResponse } from '../helpers/rawRequest';
import { expectErrorBeforeCommit, expectJsonAnswer, expectNdjsonAnswer } from '../helpers/wireAssertions';
import { AUTH, GATEWAY_KEYS, startFaultGateway, type FaultGateway } from './startFaultGateway';

const body = (scenario: string, content = 'hi'): unknown => ({
  model: scenario === '' ? 'deepseek-chat' : `deepseek-chat#${scenario}`,
  messages: [{ role: 'user', content }],
});
const post = (gw: FaultGateway, endpoint: string, scenario: string, options: { signal?: AbortSignal; headers?: Record<string, string>; content?: string } = {}): Promise<RawResponse> =>
  rawRequest(`${gw.gateway.url}${endpoint}`, {
    headers: options.headers ?? AUTH,
    body: body(scenario, options.content),
    signal: options.signal ?? AbortSignal.timeout(20_000),
  });
const until = async (condition: () => boolean, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
/** The emulator's record of the request whose first message is `content`. */
const upstreamOf = (gw: FaultGateway, content: string) =>
  gw.emulator.requests.find((r) => (r.body as { messages?: Array<{ content?: string }> } | undefined)?.messages?.[0]?.content === content);

describe('CHATFLUX_MAX_ANSWER_CHARS: the cap of a /chat/json answer', () => {
  let gw: FaultGateway;
  beforeAll(async () => {
    gw = await startFaultGateway({ env: { CHATFLUX_MAX_ANSWER_CHARS: '2000', CHATFLUX_MAX_RETRIES: '0' } });
  });
  afterAll(async () => gw.close());

  it('a longer answer is a 502 answer_too_large, and the upstream request is aborted', async () => {
    const res = await post(gw, '/chat/json', 'tokens=100000;pace=1', { content: 'long json' });
    const error = expectErrorBeforeCommit(res, '/chat/json', 502, 'answer_too_large');
    expect(error.message).toMatch(/larger than maxAnswerChars \(2000 characters/);
    const upstream = upstreamOf(gw, 'long json');
    await upstream?.closed;
    expect({ closedEarly: upstream?.closedEarly, completed: upstream?.completed }).toEqual({ closedEarly: true, completed: false });
  });

  it('an answer within the cap is whole, and a stream (nothing held) is not capped', async () => {
    expect(expectJsonAnswer(await post(gw, '/chat/json', '')).done).toBe(true);
    const chunks = expectNdjsonAnswer(await post(gw, '/chat/stream', 'tokens=1000'));
    expect(chunks.map((c) => c.message.content).join('').length).toBeGreaterThan(2000);
  });
});

describe('CHATFLUX_JSON_TIMEOUT_MS: the deadline of a whole /chat/json request', () => {
  let gw: FaultGateway;
  beforeAll(async () => {
    gw = await startFaultGateway({ env: { CHATFLUX_JSON_TIMEOUT_MS: '500', CHATFLUX_MAX_RETRIES: '0' } });
  });
  afterAll(async () => gw.close());

  it('a slower answer is a 504 timeout at the deadline, and the upstream request is aborted', async () => {
    const started = performance.now();
    const res = await post(gw, '/chat/json', 'tokens=200;pace=50', { content: 'slow json' });
    expect(performance.now() - started).toBeLessThan(promptBound(5000)); // 10 s of answer; the deadline is 0.5 s
    expectErrorBeforeCommit(res, '/chat/json', 504, 'timeout');
    const upstream = upstreamOf(gw, 'slow json');
    await upstream?.closed;
    expect(upstream?.closedEarly).toBe(true);
  });
});

describe('CHATFLUX_UPSTREAM_CONNECTIONS and CHATFLUX_CONNECTION_WAIT_MS: no silent queue', () => {
  let gw: FaultGateway;
  beforeAll(async () => {
    gw = await startFaultGateway({
      env: {
        CHATFLUX_UPSTREAM_CONNECTIONS: '2',
        CHATFLUX_CONNECTION_WAIT_MS: '300',
        CHATFLUX_MAX_CONCURRENT_PER_CLIENT: '0',
        CHATFLUX_MAX_RETRIES: '0',
      },
    });
  });
  afterAll(async () => gw.close());

  it('with every connection held by an upstream slow to send headers, a request gets 503 upstream_busy at once', async () => {
    const holders = new AbortController();
    const held = [1, 2].map((i) =>
      post(gw, '/chat/sse', 'headers-delay=20000', { signal: holders.signal, content: `held ${i}` }),
    );
    await until(() => upstreamOf(gw, 'held 1') !== undefined && upstreamOf(gw, 'held 2') !== undefined);
    const started = performance.now();
    const refused = await post(gw, '/chat/stream', '', { content: 'refused' });
    expect(performance.now() - started).toBeLessThan(promptBound(3000)); // the wait is 0.3 s; it was a silent queue
    const error = expectErrorBeforeCommit(refused, '/chat/stream', 503, 'upstream_busy');
    expect(error.message).toMatch(/all 2 connections stayed in use for 300 ms/);
    expect(refused.headers['retry-after']).toBe('1');
    expect(upstreamOf(gw, 'refused')).toBeUndefined();
    holders.abort();
    await Promise.all(held);
    await until(() => gw.emulator.requests.every((r) => r.status !== 0 || r.closedEarly));
    expect(expectJsonAnswer(await post(gw, '/chat/json', '', { content: 'after' })).done).toBe(true);
  });
});

describe('CHATFLUX_MAX_CONCURRENT_PER_CLIENT: one client cannot take every connection', () => {
  let gw: FaultGateway;
  beforeAll(async () => {
    gw = await startFaultGateway({ env: { CHATFLUX_MAX_CONCURRENT_PER_CLIENT: '2', CHATFLUX_MAX_RETRIES: '0' } });
  });
  afterAll(async () => gw.close());

  it('a third request of one key gets 429 concurrency_limit at once; another key is served; the place comes back', async () => {
    const holders = new AbortController();
    const held = [1, 2].map((i) =>
      post(gw, '/chat/sse', 'tokens=400;pace=50', { signal: holders.signal, content: `busy ${i}` }),
    );
    await until(() => upstreamOf(gw, 'busy 1') !== undefined && upstreamOf(gw, 'busy 2') !== undefined);
    for (const endpoint of ['/chat/json', '/chat/stream', '/chat/sse'] as const) {
      const refused = await post(gw, endpoint, '', { content: 'third' });
      const error = expectErrorBeforeCommit(refused, endpoint, 429, 'concurrency_limit');
      expect(error.message).toMatch(/already has 2 requests running/);
      expect(refused.headers['retry-after']).toBe('1');
    }
    expect(upstreamOf(gw, 'third')).toBeUndefined();
    const other = await post(gw, '/chat/json', '', { headers: { Authorization: `Bearer ${GATEWAY_KEYS[1]}` } });
    expect(expectJsonAnswer(other).done).toBe(true);
    holders.abort();
    await Promise.all(held);
    await until(() => gw.logs.length >= 6);
    expect(expectJsonAnswer(await post(gw, '/chat/json', '')).done).toBe(true);
  });
});
