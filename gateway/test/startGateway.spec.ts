import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { ConfigError } from '../../src/core/errors';
import { join } from 'node:path';
import type { ChatRequestLog } from '../../src/express/chatRouter';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest, type RawResponse } from '../../test/helpers/rawRequest';
import { startKeyEchoUpstream } from '../../test/helpers/startKeyEchoUpstream';
import { waitFor } from '../../test/helpers/streamSources';
import { describeResumeContract } from '../../test/helpers/resumeContractSuite';
import { describeWireContract } from '../../test/helpers/wireContractSuite';
import {
  expectErrorAfterCommit,
  expectErrorBeforeCommit,
  expectEventSourceAnswer,
  expectJsonAnswer,
  expectNdjsonAnswer,
  expectSseAnswer,
  type Endpoint,
} from '../../test/helpers/wireAssertions';

const HELLO = { messages: [{ role: 'user', content: 'Hello, world!' }] };
const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
const SHUTTING_DOWN = { message: 'the gateway is shutting down; retry the request', type: 'server_error', code: 'shutting_down' };

/** The last HTTP/1.1 response in `text` (a connection's whole output), as a RawResponse (its body by Content-Length). */
function lastResponse(text: string): RawResponse {
  const at = text.lastIndexOf('HTTP/1.1 ');
  const end = text.indexOf('\r\n\r\n', at);
  const [statusLine = '', ...lines] = text.slice(at, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  const body = Buffer.from(text.slice(end + 4)).subarray(0, Number(headers['content-length'])).toString('utf8');
  return { status: Number(statusLine.split(' ')[1]), headers, body, pieces: [] };
}

/** `POST path` with a JSON body as raw HTTP/1.1 (for pipelining several on one connection). */
const postText = (path: string, body: unknown, headers = ''): string => {
  const json = JSON.stringify(body);
  return `POST ${path} HTTP/1.1\r\nHost: gateway\r\n${headers}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
};

describe('startGateway with the built-in emulator (the npm start default)', () => {
  let gateway: RunningGateway;
  const logs: ChatRequestLog[] = [];
  beforeAll(async () => {
    gateway = await startGateway({ ...loadGatewayConfig({}), port: 0 }, { log: (entry) => logs.push(entry) });
  });
  afterAll(async () => gateway.close(0));

  it('serves /healthz, the page, a JSON 404, and the three endpoints with no key', async () => {
    const health = await rawRequest(`${gateway.url}/healthz`);
    const { version } = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as { version: string };
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: 'ok', provider: 'emulator', version }]);
    const page = await rawRequest(`${gateway.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<title>chatflux gateway</title>');
    expect(page.headers['x-powered-by']).toBeUndefined();
    const missing = await rawRequest(`${gateway.url}/nope`);
    expect([missing.status, JSON.parse(missing.body).error.code]).toEqual([404, 'not_found']);
    expectJsonAnswer(await rawRequest(`${gateway.url}/chat/json`, { body: HELLO }));
    expectNdjsonAnswer(await rawRequest(`${gateway.url}/chat/stream`, { body: HELLO }));
    expectSseAnswer(await rawRequest(`${gateway.url}/chat/sse`, { body: HELLO }));
    expectEventSourceAnswer(await rawRequest(`${gateway.url}/chat/sse`));
    await waitFor(() => logs.length === 4);
    expect(logs.map((l) => [l.endpoint, l.status])).toEqual([
      ['/chat/json', 200],
      ['/chat/stream', 200],
      ['/chat/sse', 200],
      ['/chat/sse', 200],
    ]);
  });
});

describe('startGateway: the built-in emulator streams at a provider’s pace', () => {
  it('spreads an answer over time by default (30 ms between events), and CHATFLUX_EMULATOR_PACE_MS sets it', async () => {
    const paced = await startGateway({ ...loadGatewayConfig({}), port: 0 }, { log: () => undefined });
    const instant = await startGateway({ ...loadGatewayConfig({ CHATFLUX_EMULATOR_PACE_MS: '0' }), port: 0 }, { log: () => undefined });
    try {
      const spread = async (url: string): Promise<{ chunks: number; ms: number }> => {
        const res = await rawRequest(`${url}/chat/stream`, { body: HELLO });
        const chunks = expectNdjsonAnswer(res).length;
        return { chunks, ms: (res.pieces.at(-1)?.at ?? 0) - (res.pieces[0]?.at ?? 0) };
      };
      const slow = await spread(paced.url);
      // At least half the pace per event (a lower bound holds on a loaded machine; the answer has ~20 chunks).
      expect(slow.chunks).toBeGreaterThan(10);
      expect(slow.ms).toBeGreaterThanOrEqual((slow.chunks - 2) * 15);
      const fast = await spread(instant.url);
      expect(fast.chunks).toBe(slow.chunks);
      expect(fast.ms).toBeLessThan(slow.ms);
    } finally {
      await paced.close(0);
      await instant.close(0);
    }
  });
});

describe('startGateway on a port in use', () => {
  it('rejects with a ConfigError naming the port and PORT, and leaves nothing running', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const failed = await startGateway({ ...loadGatewayConfig({}), port }, { log: () => undefined }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(ConfigError);
      expect((failed as ConfigError).message).toBe(`port ${port} on 127.0.0.1 is already in use (EADDRINUSE): stop the other server, or set PORT to a free port`);
      expect(((failed as ConfigError).cause as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
    } finally {
      busy.close();
    }
  });
});

describeWireContract(
  'gateway',
  async ({ client, apiKeys, heartbeatMs, log }) => {
    const gateway = await startGateway(
      { port: 0, host: '127.0.0.1', provider: 'openai-compatible', gatewayKeys: apiKeys, heartbeatMs },
      { client, log: log ?? (() => undefined) },
    );
    return { baseUrl: gateway.url, close: () => gateway.close(0) };
  },
  ['moonshot'],
);

describeResumeContract('gateway', async ({ client, apiKeys, heartbeatMs, resumable }) => {
  const gateway = await startGateway(
    { port: 0, host: '127.0.0.1', provider: 'openai-compatible', gatewayKeys: apiKeys, heartbeatMs, abandonAfterMs: resumable.abandonAfterMs },
    { client, log: () => undefined },
  );
  return { baseUrl: gateway.url, close: () => gateway.close(0) };
});

describe('graceful shutdown', () => {
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 2 });
  });
  afterEach(async () => emulator.close());

  const start = (): Promise<RunningGateway> =>
    startGateway({ port: 0, host: '127.0.0.1', provider: 'openai-compatible', baseUrl: emulator.url, gatewayKeys: [], heartbeatMs: 15_000 }, { log: () => undefined });

  it('lets a stream in flight finish within the grace period, and refuses new connections', async () => {
    const gateway = await start();
    const streaming = rawRequest(`${gateway.url}/chat/sse`, { body: { ...HELLO, model: 'deepseek-chat#pace=20;tokens=30' } });
    await emulator.waitForRequest();
    const closing = gateway.close(10_000);
    await expect(rawRequest(`${gateway.url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
    expectSseAnswer(await streaming);
    await closing;
  });

  it('ends streams still running after the grace period with an error frame', async () => {
    const gateway = await start();
    const streaming = rawRequest(`${gateway.url}/chat/stream`, { body: { ...HELLO, model: 'deepseek-chat#pace=20;tokens=100000' } });
    const upstream = await emulator.waitForRequest();
    await waitFor(() => upstream.framesWritten > 3);
    const started = Date.now();
    await gateway.close(300);
    expect(Date.now() - started).toBeLessThan(5000);
    const { error } = expectErrorAfterCommit(await streaming, '/chat/stream', 1);
    expect(error).toEqual(SHUTTING_DOWN);
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
  });

  it('answers responses not yet committed after the grace period with 503 + Retry-After in each endpoint format, never 499', async () => {
    const logs: ChatRequestLog[] = [];
    const gateway = await startGateway(
      { port: 0, host: '127.0.0.1', provider: 'openai-compatible', baseUrl: emulator.url, gatewayKeys: [], heartbeatMs: 15_000 },
      { log: (entry) => logs.push(entry) },
    );
    // /chat/json waits for a long answer; the streams wait for a provider still queueing them (nothing committed).
    const pending = ENDPOINTS.map((endpoint) =>
      rawRequest(`${gateway.url}${endpoint}`, { body: { ...HELLO, model: `deepseek-chat#${endpoint === '/chat/json' ? 'pace=20;tokens=100000' : 'queue=5000'}` } }),
    );
    await waitFor(() => emulator.requests.length === 3);
    await gateway.close(300);
    const responses = await Promise.all(pending);
    ENDPOINTS.forEach((endpoint, i) => {
      const res = responses[i] as RawResponse;
      expect(expectErrorBeforeCommit(res, endpoint, 503, 'shutting_down')).toEqual(SHUTTING_DOWN);
      expect(res.headers['retry-after']).toBe('1');
    });
    expect(logs.map((entry) => [entry.status, entry.result, entry.error?.code])).toEqual(ENDPOINTS.map(() => [503, 'failed', 'shutting_down']));
  });

  it.each(ENDPOINTS)('%s: a request arriving on an open connection during the shutdown gets 503 in the endpoint format', async (endpoint) => {
    const gateway = await start();
    const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8').on('data', (piece: string) => (text += piece));
    const socketClosed = new Promise((resolve) => socket.once('close', resolve));
    // A stream in flight keeps the connection open through the shutdown; a second request is pipelined behind it.
    socket.write(postText('/chat/sse', { ...HELLO, model: 'deepseek-chat#pace=20;tokens=20' }));
    await emulator.waitForRequest();
    const closing = gateway.close(10_000);
    socket.write(postText(endpoint, HELLO));
    await socketClosed;
    await closing;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const refused = lastResponse(text);
    expect(expectErrorBeforeCommit(refused, endpoint, 503, 'shutting_down')).toEqual(SHUTTING_DOWN);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['connection']).toBe('close');
    expect(emulator.requests).toHaveLength(1);
  });

  it('the 503 of a shutdown carries the cross-origin headers, so a page of an allowed origin can read its Retry-After', async () => {
    const origin = 'https://app.example';
    const gateway = await startGateway(
      { port: 0, host: '127.0.0.1', provider: 'openai-compatible', baseUrl: emulator.url, gatewayKeys: [], heartbeatMs: 15_000, corsOrigins: [origin] },
      { log: () => undefined },
    );
    const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8').on('data', (piece: string) => (text += piece));
    const socketClosed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(postText('/chat/sse', { ...HELLO, model: 'deepseek-chat#pace=20;tokens=20' }, `Origin: ${origin}\r\n`));
    await emulator.waitForRequest();
    const closing = gateway.close(10_000);
    socket.write(postText('/chat/stream', HELLO, `Origin: ${origin}\r\n`));
    await socketClosed;
    await closing;
    const refused = lastResponse(text);
    expect(refused.status).toBe(503);
    expect(refused.headers['access-control-allow-origin']).toBe(origin);
    expect(refused.headers['access-control-expose-headers']).toMatch(/Retry-After/);
    expect(refused.headers['vary']).toMatch(/Origin/);
  });
});

describe('the upstream key (CHATFLUX_API_KEY) in front of an upstream that quotes it in its errors', () => {
  it('never reaches a client of the three endpoints, nor a log line on stdout', async () => {
    const key = 'upstream-key-of-no-known-shape-0123456789';
    const echo = await startKeyEchoUpstream();
    const lines: string[] = [];
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((text: string | Uint8Array) => (lines.push(String(text)), true));
    const logLines = (): string[] => lines.filter((line) => line.includes('"endpoint"'));
    const seen: string[] = [];
    const gateway = await startGateway({ port: 0, host: '127.0.0.1', provider: 'openai-compatible', baseUrl: echo.url, apiKey: key, model: 'm', maxRetries: 0, gatewayKeys: [], heartbeatMs: 15_000 });
    try {
      for (const endpoint of ENDPOINTS) {
        const refused = await rawRequest(`${gateway.url}${endpoint}`, { body: HELLO });
        expectErrorBeforeCommit(refused, endpoint, 502, 'internal_error');
        const inBand = await rawRequest(`${gateway.url}${endpoint}`, { body: { ...HELLO, model: 'm#in-band' } });
        if (endpoint === '/chat/json') expectErrorBeforeCommit(inBand, endpoint, 502, 'internal_error');
        else expect(expectErrorAfterCommit(inBand, endpoint, 1).error.code).toBe('internal_error');
        for (const res of [refused, inBand]) seen.push(res.body, JSON.stringify(res.headers));
      }
      await waitFor(() => logLines().length === 6);
    } finally {
      stdout.mockRestore();
      await gateway.close(0);
      await echo.close();
    }
    expect(echo.keysEchoed).toEqual(ENDPOINTS.flatMap(() => [key, key]));
    expect(seen.join('\n')).not.toContain(key);
    expect(logLines().map((line) => (JSON.parse(line) as ChatRequestLog).error?.code)).toEqual(ENDPOINTS.flatMap(() => ['internal_error', 'internal_error']));
    expect(logLines().join('')).not.toContain(key);
  });
});

describe('npm start (gateway/src/main.ts as a process)', () => {
  it('prints its config without secrets, serves, and exits 0 on SIGTERM', async () => {
    // As package.json's start script runs it: one node process with tsx's loader (tsx's CLI would fork a second
    // process, which a SIGKILL of the first leaves behind when the test fails).
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../src/main.ts')], {
      cwd: join(__dirname, '../..'),
      env: { ...process.env, PORT: '0', CHATFLUX_PROVIDER: '', CHATFLUX_GATEWAY_KEYS: 'gk-do-not-print-me' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { version } = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as { version: string };
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // Generous: tsx compiles the gateway on start, and CI runs this beside other suites on two cores.
      await waitFor(() => /listening on (http:\/\/\S+)/.test(stderr), 60_000).catch((error: unknown) => {
        throw new Error(`npm start did not print "listening on" within 60 s; its stderr:\n${stderr}`, { cause: error });
      });
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1] ?? '';
      const health = await rawRequest(`${url}/healthz`);
      expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: 'ok', provider: 'emulator', version }]);
      const denied = await rawRequest(`${url}/chat/json`, { body: HELLO });
      expect(denied.status).toBe(401);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('provider:     emulator');
      expect(stderr).toContain(`version:      chatflux-gateway ${version} (chatflux `); // the banner's first line: the gateway's version, then the library's
      expect(stderr).toContain('gateway keys: 1 configured');
      expect(stderr).not.toContain('gk-do-not-print-me');
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});
