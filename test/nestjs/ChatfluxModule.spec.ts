import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { rawRequest, type RawResponse } from '../helpers/rawRequest.js';
import {
  PING,
  contentOf,
  expectErrorAfterCommit,
  expectErrorBeforeCommit,
  expectJsonAnswer,
  expectNdjsonAnswer,
  expectSseAnswer,
  sseFrames,
  type Endpoint,
} from '../helpers/wireAssertions.js';
import { startExpressRouter, startNestApp, type NestTestApp } from './startNestApp.js';

const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
const ask = (model = 'deepseek-chat'): unknown => ({ model, messages: [{ role: 'user', content: 'Hello, how are you?' }] });
/** A keep-alive request: the writers send `Connection: keep-alive` on streams only when the client asked for it. */
const keepAlive = { Connection: 'keep-alive' };

/**
 * What legitimately differs between two servers: the clock (`Date`), and the heartbeats, which depend on timing (on a
 * loaded machine a first chunk can come after 50 ms on one server and not on the other). The heartbeat test below
 * checks they are sent.
 */
const comparable = (res: RawResponse): unknown => {
  const { date: _date, ...headers } = res.headers;
  return { status: res.status, headers, body: res.body.split(PING).join('') };
};

describe('ChatfluxModule routes (Express platform) serve the wire of the Express router', () => {
  let emulator: Emulator;
  let nest: NestTestApp;
  let router: Awaited<ReturnType<typeof startExpressRouter>>;

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 1 });
    const client = { provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'upstream-key', model: 'deepseek-chat', retry: false as const };
    nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, heartbeatMs: 50 })] });
    router = await startExpressRouter({ client, heartbeatMs: 50 });
  });
  afterAll(async () => {
    await nest.close();
    await router.close();
    await emulator.close();
  });

  /** Sends the same request to the Nest app and to the router; asserts the same status, headers and bytes. */
  const both = async (path: string, options: Parameters<typeof rawRequest>[1] = {}): Promise<RawResponse> => {
    const request = { ...options, headers: { ...keepAlive, ...options.headers } };
    const fromNest = await rawRequest(nest.url + path, request);
    const fromRouter = await rawRequest(router.url + path, request);
    expect(comparable(fromNest)).toEqual(comparable(fromRouter));
    return fromNest;
  };

  it('POST /chat/json answers one LlmClientOutput, as the router does', async () => {
    const output = expectJsonAnswer(await both('/chat/json', { body: ask() }));
    expect(output.message.content.length).toBeGreaterThan(0);
  });

  it('POST /chat/stream answers NDJSON chunks, as the router does', async () => {
    const chunks = expectNdjsonAnswer(await both('/chat/stream', { body: ask() }));
    expect(contentOf(chunks).length).toBeGreaterThan(0);
  });

  it('POST /chat/sse answers SSE chunks and [DONE], as the router does', async () => {
    const chunks = expectSseAnswer(await both('/chat/sse', { body: ask() }));
    expect(contentOf(chunks).length).toBeGreaterThan(0);
  });

  it('the three endpoints carry the same answer', async () => {
    const json = expectJsonAnswer(await rawRequest(`${nest.url}/chat/json`, { body: ask(), headers: keepAlive }));
    const ndjson = expectNdjsonAnswer(await rawRequest(`${nest.url}/chat/stream`, { body: ask(), headers: keepAlive }));
    const sse = expectSseAnswer(await rawRequest(`${nest.url}/chat/sse`, { body: ask(), headers: keepAlive }));
    expect(contentOf(ndjson)).toBe(json.message.content);
    expect(sse).toEqual(ndjson);
  });

  it.each(ENDPOINTS)('%s: an invalid body is a 400 in the endpoint format, as the router words it', async (endpoint) => {
    const res = await both(endpoint, { body: { messages: [] } });
    const error = expectErrorBeforeCommit(res, endpoint, 400, 'invalid_request');
    expect(error.message).toMatch(/^invalid request body: messages: /);
  });

  it.each(ENDPOINTS)('%s: a body that is not JSON is a 415 in the endpoint format', async (endpoint) => {
    const res = await both(endpoint, { body: 'hello', headers: { 'Content-Type': 'text/plain' } });
    expectErrorBeforeCommit(res, endpoint, 415, 'unsupported_media_type');
  });

  it.each(ENDPOINTS)('%s: an upstream 429 is a 429 in the endpoint format', async (endpoint) => {
    const res = await both(endpoint, { body: ask('deepseek-chat#status=429') });
    expect(expectErrorBeforeCommit(res, endpoint, 429).type).toBe('rate_limit_error');
  });

  it.each(ENDPOINTS)('%s: an upstream 500 is a 502 in the endpoint format', async (endpoint) => {
    const res = await both(endpoint, { body: ask('deepseek-chat#status=500') });
    expect(expectErrorBeforeCommit(res, endpoint, 502).type).toBe('upstream_error');
  });

  it.each(['/chat/stream', '/chat/sse'] as const)('%s: an upstream error after the first chunk is in band', async (endpoint) => {
    const res = await both(endpoint, { body: ask('deepseek-chat#error-event-at=2') });
    const { error } = expectErrorAfterCommit(res, endpoint, 1);
    expect(error.type).toBe('upstream_error');
  });

  it('/chat/sse: heartbeats during a queue phase commit the headers, then the answer follows', async () => {
    const res = await rawRequest(`${nest.url}/chat/sse`, { body: ask('deepseek-chat#queue=400'), headers: keepAlive });
    expect(res.body.startsWith(PING)).toBe(true);
    expect(sseFrames(res.body).filter((frame) => frame.comment === 'ping').length).toBeGreaterThan(0);
    expect(contentOf(expectSseAnswer(res)).length).toBeGreaterThan(0);
  });

  it('/chat/sse: a client that disconnects mid-stream aborts the upstream request', async () => {
    const model = 'deepseek-chat#tokens=100000;pace=5';
    const before = emulator.requests.length;
    const res = await rawRequest(`${nest.url}/chat/sse`, {
      body: ask(model),
      onPiece: (_text, soFar) => (soFar.includes('"index":2') ? 'abort' : undefined),
    });
    expect(res.body).toContain('"index":2');
    expect(res.body).not.toContain('[DONE]');
    const upstream = await emulator.waitForRequest((request) => request.seq > before);
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
    expect(upstream.completed).toBe(false);
  });
});

describe('ChatfluxModule routes check downstream keys and parse bodies as the router does', () => {
  let emulator: Emulator;
  let nest: NestTestApp;
  let router: Awaited<ReturnType<typeof startExpressRouter>>;
  const apiKeys = ['downstream-key'];

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'moonshot', seed: 2 });
    const client = { provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'k', model: 'moonshot-v1-8k', retry: false as const };
    // bodyParser: false leaves the body to the module, which then parses it with the router's parser and limit.
    nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, apiKeys, bodyLimit: 2048 })] }, { bodyParser: false });
    router = await startExpressRouter({ client, apiKeys, bodyLimit: 2048 });
  });
  afterAll(async () => {
    await nest.close();
    await router.close();
    await emulator.close();
  });

  const both = async (path: string, options: Parameters<typeof rawRequest>[1] = {}): Promise<RawResponse> => {
    const request = { ...options, headers: { ...keepAlive, ...options.headers } };
    const fromNest = await rawRequest(nest.url + path, request);
    const fromRouter = await rawRequest(router.url + path, request);
    expect(comparable(fromNest)).toEqual(comparable(fromRouter));
    return fromNest;
  };
  const authorized = { Authorization: 'Bearer downstream-key' };

  it.each(ENDPOINTS)('%s: a missing or wrong key is a 401 with WWW-Authenticate', async (endpoint) => {
    for (const headers of [{}, { Authorization: 'Bearer nope' }] as Array<Record<string, string>>) {
      const res = await both(endpoint, { body: ask(), headers });
      expectErrorBeforeCommit(res, endpoint, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it.each(ENDPOINTS)('%s: malformed JSON is a 400 in the endpoint format', async (endpoint) => {
    const res = await both(endpoint, { body: '{"messages": [', headers: { ...authorized, 'Content-Type': 'application/json' } });
    expect(expectErrorBeforeCommit(res, endpoint, 400, 'invalid_request').message).toBe('the request body is not valid JSON');
  });

  it.each(ENDPOINTS)('%s: a body over the limit is a 413 in the endpoint format', async (endpoint) => {
    const big = { messages: [{ role: 'user', content: 'x'.repeat(4096) }] };
    const res = await both(endpoint, { body: big, headers: authorized });
    expectErrorBeforeCommit(res, endpoint, 413, 'payload_too_large');
  });

  it.each(ENDPOINTS)('%s: a Moonshot 429 with its wait hint is a 429 with Retry-After', async (endpoint) => {
    const res = await both(endpoint, { body: ask('moonshot-v1-8k#status=429;retry-after=7'), headers: authorized });
    expectErrorBeforeCommit(res, endpoint, 429);
    expect(res.headers['retry-after']).toBe('7');
  });

  it.each(ENDPOINTS)('%s: with the key, the answer is the router’s', async (endpoint) => {
    const res = await both(endpoint, { body: ask(), headers: authorized });
    expect(res.status).toBe(200);
  });
});
