/**
 * A client's request headers have a deadline of their own (`clientHeadersTimeoutMs`, Node's 60 s by default), not tied
 * to how long idle connections are kept (`CHATFLUX_KEEP_ALIVE_TIMEOUT_MS`, up to an hour): a client sending its headers
 * a line at a time (slowloris) is cut after it, while an idle kept-alive connection, idle longer than it, is still
 * reused. Scaled down: a 1 s headers deadline, an hour's keep-alive.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../../src/core/errors';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { waitFor } from '../../test/helpers/streamSources';

const HEADERS_TIMEOUT_MS = 1000;
let emulator: Emulator;
let gateway: RunningGateway;
const sockets: Socket[] = [];
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 4 });
  const config = loadGatewayConfig({ PORT: '0', CHATFLUX_BASE_URL: emulator.url, CHATFLUX_MODEL: 'deepseek-chat', CHATFLUX_KEEP_ALIVE_TIMEOUT_MS: '3600000' });
  gateway = await startGateway(config, { log: () => undefined, clientHeadersTimeoutMs: HEADERS_TIMEOUT_MS });
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await gateway.close(0);
  await emulator.close();
});

/** A raw connection to the gateway: what it received, and when it was closed (ms after `opened`). */
const open = (): { socket: Socket; received: () => string; closedAt: () => number | undefined; opened: number } => {
  const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1');
  sockets.push(socket);
  const opened = performance.now();
  let received = '';
  let closedAt: number | undefined;
  socket.setEncoding('utf8').on('data', (text: string) => (received += text));
  socket.on('error', () => undefined);
  socket.once('close', () => (closedAt = performance.now() - opened));
  return { socket, received: () => received, closedAt: () => closedAt, opened };
};
const ASK = 'GET /healthz HTTP/1.1\r\nHost: gateway\r\nConnection: keep-alive\r\n\r\n';

describe('gateway: the request headers deadline (clientHeadersTimeoutMs)', () => {
  it('a connection idle for three headers deadlines is still reused: the deadline times a request, not an idle connection', async () => {
    const c = open();
    c.socket.write(ASK);
    await waitFor(() => c.received().includes('"status":"ok"'), 10_000);
    await sleep(3 * HEADERS_TIMEOUT_MS);
    expect(c.closedAt()).toBeUndefined();
    c.socket.write(ASK);
    await waitFor(() => (c.received().match(/"status":"ok"/g) ?? []).length === 2 || c.closedAt() !== undefined, 10_000);
    expect(c.received().match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  }, 30_000);

  it('a client that sends its headers a line at a time is cut with 408 after the deadline, however long idle connections are kept', async () => {
    const c = open();
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n');
    const trickle = setInterval(() => c.socket.writable && c.socket.write(`X-Slow-${Math.random().toString(36).slice(2, 6)}: 1\r\n`), 100);
    try {
      // Cut between the deadline and the next check (half of it later); 10 s is the generous bound of a busy machine,
      // where the hour-long keep-alive it used to follow would hold the socket for the whole test.
      await waitFor(() => c.closedAt() !== undefined, 10_000);
    } finally {
      clearInterval(trickle);
    }
    expect(c.closedAt()).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*"code":"request_timeout"/);
  }, 30_000);

  it('refuses a deadline that is not an integer from 1 to 300000 ms, naming the option', async () => {
    const config = loadGatewayConfig({ PORT: '0', CHATFLUX_BASE_URL: emulator.url });
    for (const bad of [0, 1.5, 300_001, Number.NaN]) {
      const started = await startGateway(config, { log: () => undefined, clientHeadersTimeoutMs: bad }).catch((error: unknown) => error);
      if (!(started instanceof Error)) await (started as RunningGateway).close(0); // (not left running when it is not refused)
      expect(started).toBeInstanceOf(ConfigError);
      expect((started as Error).message).toMatch(/^clientHeadersTimeoutMs must be an integer from 1 to 300000 /);
    }
  });
});
