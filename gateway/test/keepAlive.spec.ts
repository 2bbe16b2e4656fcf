/**
 * Idle client connections: the gateway keeps them open longer than the balancers in front of it keep theirs (AWS ALB:
 * 60 s), so that a balancer (or any pooling client) never reuses a connection the gateway has just closed — the race
 * that gave `socket hang up` with Node's default 5 s. It says so in `Keep-Alive: timeout=…`.
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeGatewayConfig } from '../src/describeGatewayConfig';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { waitFor } from '../../test/helpers/streamSources';

let emulator: Emulator;
const gateways: RunningGateway[] = [];
const start = async (env: Record<string, string> = {}): Promise<RunningGateway> => {
  const gateway = await startGateway(loadGatewayConfig({ PORT: '0', CHATFLUX_BASE_URL: emulator.url, CHATFLUX_MODEL: 'deepseek-chat', ...env }), { log: () => undefined });
  gateways.push(gateway);
  return gateway;
};
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 4 });
});
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close(0)));
  await emulator.close();
});

/** One request through `agent`: its status, headers, body, and whether it went over a connection used before. */
const send = (agent: Agent, url: string, body?: unknown) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; body: string; reused: boolean }>((resolve, reject) => {
    const req = request(url, { agent, method: body === undefined ? 'GET' : 'POST', headers: body === undefined ? {} : { 'content-type': 'application/json' } });
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (piece: string) => (text += piece));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, reused: req.reusedSocket }));
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });

describe('gateway: idle client connections', () => {
  it('an agent that keeps its connection reuses it after 6 s of silence, and its request is answered', async () => {
    const gateway = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 }); // reads the Keep-Alive hint, as Node's agent does
    try {
      const first = await send(agent, `${gateway.url}/healthz`);
      expect(first).toMatchObject({ status: 200, reused: false });
      expect(first.headers['keep-alive']).toBe('timeout=65');
      await sleep(6000); // past Node's default keepAliveTimeout (5 s), well within a balancer's 60 s
      const second = await send(agent, `${gateway.url}/chat/json`, { messages: [{ role: 'user', content: 'after a pause' }] });
      expect({ status: second.status, reused: second.reused }).toEqual({ status: 200, reused: true });
      expect(JSON.parse(second.body)).toMatchObject({ done: true });
    } finally {
      agent.destroy();
    }
  }, 30_000);

  it('a client that ignores the hint (a balancer with a 60 s idle timeout) may send its next request after 6 s on the same connection', async () => {
    const gateway = await start();
    const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (text: string) => (received += text));
    socket.on('error', () => undefined); // a reset shows as a missing answer below
    const ask = 'GET /healthz HTTP/1.1\r\nHost: gateway\r\nConnection: keep-alive\r\n\r\n';
    socket.write(ask);
    await waitFor(() => received.includes('"status":"ok"'), 10_000);
    await sleep(6000);
    received = '';
    if (!socket.destroyed) socket.write(ask);
    await waitFor(() => received.includes('"status":"ok"') || socket.destroyed, 10_000).catch(() => undefined);
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*"status":"ok"/);
  }, 30_000);

  it('CHATFLUX_KEEP_ALIVE_TIMEOUT_MS sets it: announced in Keep-Alive, and an idle connection is closed after it, not before', async () => {
    const gateway = await start({ CHATFLUX_KEEP_ALIVE_TIMEOUT_MS: '2000' });
    const { port } = new URL(gateway.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (text: string) => (received += text));
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
    socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\nConnection: keep-alive\r\n\r\n');
    await waitFor(() => received.includes('"status":"ok"'), 10_000);
    const answered = performance.now();
    expect(received).toMatch(/\r\nKeep-Alive: timeout=2\r\n/i);
    const at = await Promise.race([closed, sleep(20_000).then(() => Number.NaN)]);
    socket.destroy();
    expect(at - answered).toBeGreaterThanOrEqual(1900); // a timer never fires early: closed by the setting, not sooner
  }, 30_000);

  it('CHATFLUX_KEEP_ALIVE_TIMEOUT_MS takes 1000 to 3600000 ms, and the banner prints it', () => {
    expect(() => loadGatewayConfig({ CHATFLUX_KEEP_ALIVE_TIMEOUT_MS: '500' })).toThrow(/CHATFLUX_KEEP_ALIVE_TIMEOUT_MS must be an integer from 1000 to 3600000/);
    expect(loadGatewayConfig({ CHATFLUX_KEEP_ALIVE_TIMEOUT_MS: '120000' }).keepAliveTimeoutMs).toBe(120_000);
    expect(describeGatewayConfig(loadGatewayConfig({}))).toContain('connections:  idle kept open 65000 ms (default)');
    expect(describeGatewayConfig(loadGatewayConfig({ CHATFLUX_KEEP_ALIVE_TIMEOUT_MS: '120000' }))).toContain('connections:  idle kept open 120000 ms');
  });
});
