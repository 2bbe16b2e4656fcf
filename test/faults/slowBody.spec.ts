/**
 * Slow request bodies through the real gateway: a body slower than `CHATFLUX_BODY_TIMEOUT_MS` gets 408 in the
 * endpoint's format and its connection is closed; a body trickling behind a refused key (401) or over the body limit
 * (413 by its Content-Length) is refused at once and its connection cut — not held for Node's 300 s `requestTimeout`.
 */
import { connect, type Socket } from 'node:net';
import { AUTH, startFaultGateway, type FaultGateway } from './startFaultGateway';
import { promptBound } from '../helpers/promptBound';

let gw: FaultGateway;
let port: number;
beforeAll(async () => {
  gw = await startFaultGateway({ env: { CHATFLUX_BODY_TIMEOUT_MS: '600' } });
  port = Number(new URL(gw.gateway.url).port);
});
afterAll(async () => gw.close());

interface Trickle {
  /** Everything the server sent. */
  response: Promise<string>;
  /** Milliseconds from the start to the first response byte, and to the server closing the connection. */
  firstByteMs: Promise<number>;
  closedMs: Promise<number>;
  socket: Socket;
}

/** Sends the headers and the start of a body, then one more byte every 100 ms, for at most 8 s (bounded). */
function trickle(path: string, headers: Record<string, string>, contentLength: number): Trickle {
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let resolveFirst!: (ms: number) => void;
  const firstByteMs = new Promise<number>((resolve) => (resolveFirst = resolve));
  const lines = Object.entries({ Host: 'x', 'Content-Type': 'application/json', 'Content-Length': String(contentLength), ...headers }).map(([k, v]) => `${k}: ${v}`);
  socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n{"messages":[`);
  const timer = setInterval(() => socket.writable && socket.write(' '), 100);
  const stop = setTimeout(() => socket.destroy(), 8000);
  socket.on('data', (data) => {
    if (text === '') resolveFirst(performance.now() - started);
    text += data.toString('utf8');
  });
  socket.on('error', () => undefined);
  const closedMs = new Promise<number>((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      clearTimeout(stop);
      resolve(performance.now() - started);
    }),
  );
  return { response: closedMs.then(() => text), firstByteMs, closedMs, socket };
}

describe('slow request bodies', () => {
  it.each(['/chat/json', '/chat/stream', '/chat/sse'])('%s: a body slower than the deadline is a 408 in the endpoint format, then the connection closes', async (path) => {
    const t = trickle(path, AUTH, 5000);
    const closedMs = await t.closedMs;
    const response = await t.response;
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(response).toMatch(/connection: close/i);
    expect(response).toContain('"code":"request_timeout"');
    expect(response).toContain('did not arrive within 600 ms');
    expect(closedMs).toBeLessThan(5000); // the deadline (0.6 s) and the grace (1 s), with a generous margin
  });

  it('a body trickling behind a refused key gets its 401 at once and its connection is cut', async () => {
    const t = trickle('/chat/sse', {}, 5000);
    expect(await t.firstByteMs).toBeLessThan(promptBound(1000));
    expect(await t.closedMs).toBeLessThan(promptBound(4000));
    const response = await t.response;
    expect(response).toMatch(/^HTTP\/1\.1 401 /);
    expect(response).toMatch(/www-authenticate: Bearer/i);
    expect(response).toContain('event: error');
  });

  it('a body over the limit by its Content-Length is a 413 at once, and its connection is cut', async () => {
    const t = trickle('/chat/json', AUTH, 5_000_000);
    expect(await t.firstByteMs).toBeLessThan(promptBound(1000));
    expect(await t.closedMs).toBeLessThan(promptBound(4000));
    expect(await t.response).toMatch(/^HTTP\/1\.1 413 [\s\S]*"code":"payload_too_large"/);
  });

  it('a body sent at once is still served on a connection that stays open', async () => {
    const res = await fetch(`${gw.gateway.url}/chat/json`, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).not.toBe('close');
  });
});
