/**
 * A bounded load test: while hostile clients hit the gateway — bodies of 330,000 empty messages, bodies trickling
 * byte by byte, gzip that is not gzip — a healthy SSE stream paced at 50 ms
 * keeps flowing and `/healthz` keeps answering. Asserted with a generous margin (a gap of seconds, as measured before
 * the request limits, fails); the figures are printed. Bounded: about 8 s of load, a few hundred requests at most.
 */
import { connect, type Socket } from 'node:net';
import { rawRequest } from '../helpers/rawRequest';
import { AUTH, GATEWAY_KEYS, startFaultGateway, type FaultGateway } from '../faults/startFaultGateway';

const HOSTILE = { Authorization: `Bearer ${GATEWAY_KEYS[1]}` }; // another client: the per-client limit is not what keeps the healthy one going
const EMPTIES = `{"messages":[${new Array(330_000).fill('{}').join(',')}]}`;
const MAX_HOSTILE_REQUESTS = 400;

let gw: FaultGateway;
let port: number;
beforeAll(async () => {
  gw = await startFaultGateway({ env: { CHATFLUX_BODY_TIMEOUT_MS: '2000' } });
  port = Number(new URL(gw.gateway.url).port);
});
afterAll(async () => gw.close());

/** Opens a raw connection, sends `head` (and `body`), and hands back the socket. */
const rawSocket = (text: string): Socket => {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(text);
  return socket;
};

describe('the gateway under hostile requests', () => {
  it('keeps a healthy stream flowing and /healthz answering', async () => {
    let stop = false;
    let hostileRequests = 0;
    const sockets: Socket[] = [];
    const more = (): boolean => !stop && hostileRequests++ < MAX_HOSTILE_REQUESTS;
    const loop = async (send: () => Promise<unknown>): Promise<void> => {
      while (more()) await send().catch(() => undefined);
    };
    const hostile = [
      // validation cost: 330,000 empty messages (990 KB), back to back
      ...[1, 2].map(() => loop(() => rawRequest(`${gw.gateway.url}/chat/json`, { body: EMPTIES, headers: HOSTILE, signal: AbortSignal.timeout(10_000) }))),
      // decoding errors
      loop(() => rawRequest(`${gw.gateway.url}/chat/sse`, { body: 'not gzip at all', headers: { ...HOSTILE, 'Content-Encoding': 'gzip' }, signal: AbortSignal.timeout(10_000) })),
      // slow bodies: a byte every 100 ms, cut by the 2 s body deadline (408)
      ...[1, 2, 3, 4].map(() =>
        loop(
          () =>
            new Promise<void>((resolve) => {
              const socket = rawSocket(
                `POST /chat/stream HTTP/1.1\r\nHost: x\r\nAuthorization: ${HOSTILE.Authorization}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
              );
              sockets.push(socket);
              const timer = setInterval(() => socket.writable && socket.write(' '), 100);
              socket.once('close', () => {
                clearInterval(timer);
                resolve();
              });
              setTimeout(() => socket.destroy(), 5000);
            }),
        ),
      ),
    ];
    // Not here yet: clients that never read a long stream. Four of them (answers of 3,000 tokens, gateway and
    // emulator in this one process) stalled /healthz for 1.7 s (4.9 s at 100,000 tokens); where that time goes — the
    // gateway's writer or the in-process emulator — is still to be found (issue 16).
    const healthz: number[] = [];
    const probe = (async () => {
      while (!stop) {
        const started = performance.now();
        const res = await rawRequest(`${gw.gateway.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
        expect(res.status).toBe(200);
        healthz.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();

    await new Promise((resolve) => setTimeout(resolve, 500)); // the load is on
    const healthy = await rawRequest(`${gw.gateway.url}/chat/sse`, {
      body: { model: 'deepseek-chat#pace=50;tokens=40', messages: [{ role: 'user', content: 'hi' }] },
      headers: AUTH,
      signal: AbortSignal.timeout(20_000),
    });
    stop = true;
    for (const socket of sockets) socket.destroy();
    await Promise.all([...hostile, probe]);

    const gaps = healthy.pieces.slice(1).map((piece, i) => piece.at - (healthy.pieces[i]?.at ?? piece.at));
    const largestGap = Math.max(...gaps);
    const slowestHealthz = Math.max(...healthz);
    console.log(
      `hostile load: ${hostileRequests} hostile requests; healthy stream ${healthy.pieces.length} pieces in ${Math.round(healthy.pieces.at(-1)?.at ?? 0)} ms, largest gap ${Math.round(largestGap)} ms; ` +
        `/healthz ${healthz.length} probes, slowest ${Math.round(slowestHealthz)} ms`,
    );
    expect(healthy.status).toBe(200);
    expect(healthy.body).toContain('data: [DONE]');
    expect(healthy.body).not.toContain('event: error');
    expect(healthy.pieces.length).toBeGreaterThan(10);
    expect(healthz.length).toBeGreaterThan(5);
    expect(largestGap).toBeLessThan(1500);
    expect(slowestHealthz).toBeLessThan(1000);
  }, 30_000);
});
