/**
 * The wire contract of the three endpoints as one jest suite that any server serving them can run: the Express
 * router and the gateway here, the NestJS module in its own spec — the SAME assertions, not copies.
 *
 * The suite starts the upstream emulator per dialect and asks `start` for a server in front of it, built with
 * {@link wireTargetClientConfig} (no retries, short timeouts) and `apiKeys` as downstream keys. Faults are chosen
 * per request with the emulator's model suffix (`deepseek-chat#status=429`), which the gateway forwards as is.
 */
import type { ChatClientConfig } from '../../src/client/createChatClient';
import type { EmulatorDialect } from '../../src/testing/EmulatorDialect';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest, type RawResponse } from './rawRequest';
import { startKeyEchoUpstream, type KeyEchoUpstream } from './startKeyEchoUpstream';
import {
  contentOf,
  expectErrorAfterCommit,
  expectErrorBeforeCommit,
  expectJsonAnswer,
  expectNdjsonAnswer,
  expectSseAnswer,
  type Endpoint,
} from './wireAssertions';

/** What the suite asks a server factory to build. */
export interface WireTargetSetup {
  /** The chat client config to serve from (the emulator, no retries, short timeouts). */
  client: ChatClientConfig;
  /** Downstream keys to require (`Authorization: Bearer <key>`). */
  apiKeys: string[];
  /** SSE heartbeat interval to configure. */
  heartbeatMs: number;
  /**
   * The request log sink to configure, when the server has one (the router's and the gateway's `log`): the suite
   * asserts that no entry contains the upstream key. A server without a log may ignore it.
   */
  log?: (entry: unknown) => void;
}

/** A server under test, serving POST /chat/json, /chat/stream, /chat/sse at `baseUrl`. */
export interface WireTarget {
  baseUrl: string;
  close(): Promise<void>;
}

/** The downstream key every request of the suite sends. */
export const SUITE_KEY = 'suite-gateway-key-0123456789';

/** The upstream API key of {@link wireTargetClientConfig}: it must never reach a client or a log line. */
export const UPSTREAM_KEY = 'sk-emulator-upstream-key-42';

/**
 * The client config the suite's servers must use: the emulator, no retries, first chunk 2.5 s (a busy machine can take
 * over a second to the first chunk of a healthy answer), idle 500 ms.
 */
export const wireTargetClientConfig = (emulatorUrl: string, model: string): ChatClientConfig => ({
  baseUrl: emulatorUrl,
  model,
  apiKey: UPSTREAM_KEY,
  retry: 0,
  timeouts: { firstChunk: 2500, idle: 500 },
});

const MODEL: Record<EmulatorDialect, string> = { deepseek: 'deepseek-chat', moonshot: 'moonshot-v1-8k', openai: 'gpt-4o-mini' };
const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];

/** Options of {@link describeWireContract}. */
export interface WireContractOptions {
  /**
   * `'platform'`: the server's platform parses JSON bodies before chatflux sees them, so malformed JSON and a body
   * over the limit get the contract's status (400, 413) in the platform's JSON format, not the endpoint's — the
   * README's documented exception for NestJS on Fastify. Default `'endpoint'`: the endpoint's format, as everywhere.
   */
  bodyErrors?: 'endpoint' | 'platform';
}

/**
 * Defines the wire-contract tests for a server factory, for each dialect of the emulator.
 *
 * @param name - The describe block's name.
 * @param start - Builds the server under test from the setup.
 * @param dialects - The emulator dialects to run against.
 * @param options - The documented exceptions of the server under test.
 */
export function describeWireContract(
  name: string,
  start: (setup: WireTargetSetup) => Promise<WireTarget>,
  dialects: EmulatorDialect[] = ['deepseek', 'moonshot', 'openai'],
  options: WireContractOptions = {},
): void {
  /** A body error: in the endpoint's format, or (bodyErrors: 'platform') the same status in the platform's JSON. */
  const expectBodyError = (res: RawResponse, endpoint: Endpoint, status: number, code: string): void => {
    if (options.bodyErrors !== 'platform') {
      expectErrorBeforeCommit(res, endpoint, status, code);
      return;
    }
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json\b/);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: status, message: expect.any(String) });
  };
  describe.each(dialects)(`${name} — wire contract (%s dialect)`, (dialect) => {
    let emulator: Emulator;
    let target: WireTarget;
    /**
     * The answers to an upstream that sends no first chunk in time, one per endpoint: each waits out the first-chunk
     * timeout (2.5 s), so they are asked at once, as soon as the server is up, while the other tests run; their test
     * awaits and checks each (the emulator's answers depend on the request only, not on what else it serves).
     */
    let noFirstChunk = new Map<Endpoint, Promise<RawResponse>>();
    beforeAll(async () => {
      emulator = await startEmulator({ dialect, seed: 7 });
      target = await start({ client: wireTargetClientConfig(emulator.url, MODEL[dialect]), apiKeys: [SUITE_KEY], heartbeatMs: 15_000 });
      noFirstChunk = new Map(ENDPOINTS.map((endpoint) => [endpoint, ask(endpoint, 'queue=6000')]));
      // A failure is its test's to report (awaited there); not an unhandled rejection when that test is filtered out.
      for (const answer of noFirstChunk.values()) answer.catch(() => undefined);
    });
    afterAll(async () => {
      await Promise.allSettled(noFirstChunk.values()); // none left in flight when the server closes
      await target.close();
      await emulator.close();
    });

    const auth = { Authorization: `Bearer ${SUITE_KEY}` };
    const ask = (endpoint: Endpoint, scenario = '', extra: Record<string, unknown> = {}): Promise<RawResponse> =>
      rawRequest(`${target.baseUrl}${endpoint}`, {
        headers: auth,
        body: { model: scenario === '' ? MODEL[dialect] : `${MODEL[dialect]}#${scenario}`, messages: [{ role: 'user', content: 'Hello, world!' }], ...extra },
      });

    it('serves the same answer on the three endpoints, each with its exact wire', async () => {
      const json = expectJsonAnswer(await ask('/chat/json'));
      const stream = expectNdjsonAnswer(await ask('/chat/stream'));
      const sse = expectSseAnswer(await ask('/chat/sse'));
      expect(json.message.content.length).toBeGreaterThan(0);
      expect(contentOf(stream)).toBe(json.message.content);
      expect(sse).toEqual(stream);
      expect(stream.at(-1)?.usage).toEqual(json.usage);
    });

    it('defaults the model from the server config when the request names none', async () => {
      const res = await rawRequest(`${target.baseUrl}/chat/json`, { headers: auth, body: { messages: [{ role: 'user', content: 'hi' }] } });
      expect(expectJsonAnswer(res).model).toBe(MODEL[dialect]);
    });

    it.each(ENDPOINTS)('%s: 400 for a body the schema refuses, listing the issue', async (endpoint) => {
      const res = await ask(endpoint, '', { messages: [] });
      expect(expectErrorBeforeCommit(res, endpoint, 400, 'invalid_request').message).toMatch(/messages/);
    });

    it.each(ENDPOINTS)('%s: 400 for malformed JSON', async (endpoint) => {
      const res = await rawRequest(`${target.baseUrl}${endpoint}`, { headers: auth, body: '{"messages": [' });
      expectBodyError(res, endpoint, 400, 'invalid_request');
    });

    it.each(ENDPOINTS)('%s: 415 for a body that is not application/json', async (endpoint) => {
      const res = await rawRequest(`${target.baseUrl}${endpoint}`, { headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'hello' });
      expectErrorBeforeCommit(res, endpoint, 415, 'unsupported_media_type');
    });

    it.each(ENDPOINTS)('%s: 413 for a body over the limit (1 MB)', async (endpoint) => {
      const res = await ask(endpoint, '', { messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] });
      expectBodyError(res, endpoint, 413, 'payload_too_large');
    });

    it.each(ENDPOINTS)('%s: 401 without a key and with a wrong key, never echoing it', async (endpoint) => {
      const body = { messages: [{ role: 'user', content: 'hi' }] };
      const missing = await rawRequest(`${target.baseUrl}${endpoint}`, { body });
      expectErrorBeforeCommit(missing, endpoint, 401, 'unauthorized');
      const wrong = await rawRequest(`${target.baseUrl}${endpoint}`, { headers: { Authorization: 'Bearer not-the-key-123456' }, body });
      expectErrorBeforeCommit(wrong, endpoint, 401, 'unauthorized');
      expect(wrong.body).not.toContain('not-the-key-123456');
      expect(wrong.headers['www-authenticate']).toBe('Bearer');
    });

    it.each(ENDPOINTS)('%s: an upstream 429 is passed on as 429 (with Retry-After when the provider gave a wait)', async (endpoint) => {
      const res = await ask(endpoint, 'status=429;retry-after=2');
      expectErrorBeforeCommit(res, endpoint, 429);
      expect(res.headers['retry-after']).toBe(dialect === 'deepseek' ? undefined : '2');
    });

    it.each(ENDPOINTS)('%s: an upstream 500 and an HTML 502 page become 502', async (endpoint) => {
      expectErrorBeforeCommit(await ask(endpoint, 'status=500'), endpoint, 502);
      const html = expectErrorBeforeCommit(await ask(endpoint, 'html-status=502'), endpoint, 502);
      expect(html.message).not.toMatch(/<html/i);
    });

    it.each(ENDPOINTS)('%s: the upstream API key never reaches the client', async (endpoint) => {
      const res = await ask(endpoint, 'status=401');
      expectErrorBeforeCommit(res, endpoint, 502);
      expect(res.body).not.toContain(UPSTREAM_KEY);
    });

    describe('in front of an upstream that quotes the API key in its errors', () => {
      let echo: KeyEchoUpstream;
      let echoTarget: WireTarget;
      const logged: unknown[] = [];
      beforeAll(async () => {
        echo = await startKeyEchoUpstream();
        echoTarget = await start({
          client: wireTargetClientConfig(echo.url, MODEL[dialect]),
          apiKeys: [SUITE_KEY],
          heartbeatMs: 15_000,
          log: (entry) => logged.push(entry),
        });
      });
      afterAll(async () => {
        await echoTarget.close();
        await echo.close();
      });
      const askEcho = (endpoint: Endpoint, model: string): Promise<RawResponse> =>
        rawRequest(`${echoTarget.baseUrl}${endpoint}`, { headers: auth, body: { model, messages: [{ role: 'user', content: 'Hello, world!' }] } });

      it.each(ENDPOINTS)('%s: the upstream API key never reaches the client nor a log line (HTTP 500 body, in-band error)', async (endpoint) => {
        const echoed = echo.keysEchoed.length;
        const refused = await askEcho(endpoint, MODEL[dialect]);
        expectErrorBeforeCommit(refused, endpoint, 502);
        const inBand = await askEcho(endpoint, `${MODEL[dialect]}#in-band`);
        if (endpoint === '/chat/json') expectErrorBeforeCommit(inBand, endpoint, 502, 'internal_error');
        else expect(expectErrorAfterCommit(inBand, endpoint, 1).error.code).toBe('internal_error');
        // The upstream did quote the key it received, in both answers …
        expect(echo.keysEchoed.slice(echoed)).toEqual([UPSTREAM_KEY, UPSTREAM_KEY]);
        // … and neither the client nor the log saw it.
        for (const res of [refused, inBand]) {
          expect(res.body).not.toContain(UPSTREAM_KEY);
          expect(JSON.stringify(res.headers)).not.toContain(UPSTREAM_KEY);
        }
        expect(logged.map((entry) => JSON.stringify(entry)).join('\n')).not.toContain(UPSTREAM_KEY);
      });
    });

    it.each(ENDPOINTS)('%s: an upstream that sends no first chunk in time becomes 504', async (endpoint) => {
      expectErrorBeforeCommit(await (noFirstChunk.get(endpoint) as Promise<RawResponse>), endpoint, 504, 'timeout');
    });

    it('/chat/json: a failure after some chunks still gets a real status (502, then 504 on a stall)', async () => {
      expectErrorBeforeCommit(await ask('/chat/json', 'error-event-at=2'), '/chat/json', 502);
      expectErrorBeforeCommit(await ask('/chat/json', 'stall-after=2'), '/chat/json', 504, 'timeout');
      expectErrorBeforeCommit(await ask('/chat/json', 'eof-after=3'), '/chat/json', 502, 'stream_incomplete');
      expectErrorBeforeCommit(await ask('/chat/json', 'finish=insufficient_system_resource'), '/chat/json', 502, 'answer_failed');
    });

    it.each(['/chat/stream', '/chat/sse'] as const)('%s: failures after the commit are in-band error frames', async (endpoint) => {
      const inBand = expectErrorAfterCommit(await ask(endpoint, 'error-event-at=3'), endpoint, 1);
      expect(inBand.error.type).toBe('upstream_error');
      const stalled = expectErrorAfterCommit(await ask(endpoint, 'stall-after=3'), endpoint, 1);
      expect(stalled.error).toMatchObject({ type: 'timeout_error', code: 'timeout' });
      const cut = expectErrorAfterCommit(await ask(endpoint, 'eof-after=3'), endpoint, 1);
      expect(cut.error.code).toBe('stream_incomplete');
      const failed = expectErrorAfterCommit(await ask(endpoint, 'finish=insufficient_system_resource'), endpoint, 1);
      expect(failed.error.code).toBe('answer_failed');
    });
  });
}
