import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { ChatRequestLog } from '../../src/express/chatRouter';
import { loadGatewayConfig } from '../../src/gateway/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../../src/gateway/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { waitFor } from '../helpers/streamSources';
import { describeWireContract } from '../helpers/wireContractSuite';
import { expectErrorAfterCommit, expectJsonAnswer, expectNdjsonAnswer, expectSseAnswer } from '../helpers/wireAssertions';

const HELLO = { messages: [{ role: 'user', content: 'Hello, world!' }] };

describe('startGateway with the built-in emulator (the npm start default)', () => {
  let gateway: RunningGateway;
  const logs: ChatRequestLog[] = [];
  beforeAll(async () => {
    gateway = await startGateway({ ...loadGatewayConfig({}), port: 0 }, { log: (entry) => logs.push(entry) });
  });
  afterAll(async () => gateway.close(0));

  it('serves /healthz, the page, a JSON 404, and the three endpoints with no key', async () => {
    const health = await rawRequest(`${gateway.url}/healthz`);
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: 'ok', provider: 'emulator' }]);
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
    expectSseAnswer(await rawRequest(`${gateway.url}/chat/sse`));
    await waitFor(() => logs.length === 4);
    expect(logs.map((l) => [l.endpoint, l.status])).toEqual([
      ['/chat/json', 200],
      ['/chat/stream', 200],
      ['/chat/sse', 200],
      ['/chat/sse', 200],
    ]);
  });
});

describeWireContract(
  'gateway',
  async ({ client, apiKeys, heartbeatMs }) => {
    const gateway = await startGateway(
      { port: 0, host: '127.0.0.1', provider: 'openai-compatible', gatewayKeys: apiKeys, heartbeatMs },
      { client, log: () => undefined },
    );
    return { baseUrl: gateway.url, close: () => gateway.close(0) };
  },
  ['moonshot'],
);

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
    expect(error).toEqual({ message: 'the gateway is shutting down', type: 'aborted_error', code: 'aborted' });
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
  });
});

describe('npm start (src/gateway/main.ts as a process)', () => {
  it('prints its config without secrets, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(__dirname, '../../node_modules/tsx/dist/cli.mjs'), join(__dirname, '../../src/gateway/main.ts')], {
      env: { ...process.env, PORT: '0', CHATFLUX_PROVIDER: '', CHATFLUX_GATEWAY_KEYS: 'gk-do-not-print-me' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(() => /listening on (http:\/\/\S+)/.test(stderr), 20_000);
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1] ?? '';
      expect((await rawRequest(`${url}/healthz`)).status).toBe(200);
      const denied = await rawRequest(`${url}/chat/json`, { body: HELLO });
      expect(denied.status).toBe(401);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('provider:     emulator');
      expect(stderr).toContain('gateway keys: 1 configured');
      expect(stderr).not.toContain('gk-do-not-print-me');
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
