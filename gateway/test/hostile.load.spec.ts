/**
 * A bounded load test: while hostile clients hit the gateway — bodies of 330,000 empty messages, bodies trickling
 * byte by byte, gzip that is not gzip — a healthy SSE stream paced at 50 ms
 * keeps flowing and `/healthz` keeps answering. Asserted against baselines taken in the same test, with a generous
 * factor, and never less than a fixed floor: the same stream and probes without the hostile clients, and the work a
 * hostile body needs in any case (`JSON.parse` of it, before and after the load). A gap of seconds, as measured before
 * the request limits, fails on an idle machine; a machine busy with other work slows the baselines too, and does not
 * fail it. The figures are printed. Bounded: about 8 s of load, a few hundred requests at most.
 * Then clients that never read a long stream: each is ended by the write stall deadline (`CHATFLUX_WRITE_STALL_TIMEOUT_MS`,
 * 500 ms here) and its upstream request abandoned, while a healthy stream keeps flowing and `/healthz` answering.
 */
import { connect, type Socket } from 'node:net';
import { jsonParseMs } from '../../test/helpers/jsonParseMs';
import { largestPieceGap } from '../../test/helpers/largestPieceGap';
import { loadAllowance } from '../../test/helpers/loadAllowance';
import { pacedSseRequest } from '../../test/helpers/pacedSseRequest';
import { probeHealthz } from '../../test/helpers/probeHealthz';
import { rawRequest } from '../../test/helpers/rawRequest';
import { AUTH, GATEWAY_KEYS, startFaultGateway, type FaultGateway } from '../../test/faults/startFaultGateway';

const HOSTILE = { Authorization: `Bearer ${GATEWAY_KEYS[1]}` }; // another client: the per-client limit is not what keeps the healthy one going
const EMPTIES = `{"messages":[${new Array(330_000).fill('{}').join(',')}]}`;
const MAX_HOSTILE_REQUESTS = 400;
const STALL_MS = 500;
const MAX_NON_READING = 4;
/** A 5 MB event first (more than the socket buffers to a client take, about 4 MB), then an answer of 100,000 tokens. */
const LONG_MODEL = 'deepseek-chat#huge-event=5000000;tokens=100000';
const LONG = JSON.stringify({ model: LONG_MODEL, messages: [{ role: 'user', content: 'a long one' }] });

let gw: FaultGateway;
let port: number;
beforeAll(async () => {
  // CHATFLUX_ABANDON_AFTER_MS=0: a stalled client's answer is not kept going for a resume; its upstream is released at once.
  gw = await startFaultGateway({ env: { CHATFLUX_BODY_TIMEOUT_MS: '2000', CHATFLUX_WRITE_STALL_TIMEOUT_MS: String(STALL_MS), CHATFLUX_ABANDON_AFTER_MS: '0' } });
  port = Number(new URL(gw.gateway.url).port);
});
afterAll(async () => gw.close());

/** The bounds under load: a multiple of the same measure without it (this machine, now), never less than the floor. */
const GAP = { factor: 20, floorMs: 1500 };
const HEALTHZ = { factor: 20, floorMs: 1000 };

/**
 * The baselines of a test, before its load: the healthy stream's largest gap and the slowest `/healthz` without
 * hostile clients, and `JSON.parse` of a hostile body (the gateway shares this process). `after()` takes the parse
 * again once the load is over: the larger counts.
 */
async function quietBaseline(): Promise<{ largestGap: number; slowestHealthz: number; parseMs: number; after: () => void }> {
  let stop = false;
  const probe = probeHealthz(gw.gateway.url, () => stop);
  const healthy = await pacedSseRequest(gw.gateway.url, AUTH);
  stop = true;
  await probe.done;
  expect(healthy.body).toContain('data: [DONE]');
  const baseline = { largestGap: largestPieceGap(healthy), slowestHealthz: Math.max(...probe.timings), parseMs: jsonParseMs(EMPTIES), after: () => void (baseline.parseMs = Math.max(baseline.parseMs, jsonParseMs(EMPTIES))) };
  return baseline;
}

/** The bounds of a test's largest gap and slowest `/healthz` under load, from its baselines. */
const allowances = (quiet: { largestGap: number; slowestHealthz: number; parseMs: number }): { gap: number; healthz: number } => ({
  gap: loadAllowance(Math.max(quiet.largestGap, quiet.parseMs), GAP),
  healthz: loadAllowance(Math.max(quiet.slowestHealthz, quiet.parseMs), HEALTHZ),
});

/** The baselines and bounds, for the printed figures. */
const described = (quiet: { largestGap: number; slowestHealthz: number; parseMs: number }): string => {
  const { gap, healthz } = allowances(quiet);
  return `without the load: gap ${Math.round(quiet.largestGap)} ms, /healthz ${Math.round(quiet.slowestHealthz)} ms; JSON.parse of a hostile body ${Math.round(quiet.parseMs)} ms; bounds: gap ${Math.round(gap)} ms, /healthz ${Math.round(healthz)} ms`;
};

/** Opens a raw connection, sends `head` (and `body`), and hands back the socket. */
const rawSocket = (text: string): Socket => {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(text);
  return socket;
};

describe('the gateway under hostile requests', () => {
  it('keeps a healthy stream flowing and /healthz answering', async () => {
    const quiet = await quietBaseline();
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
    // Clients that never read a long stream: see the next test.
    const probe = probeHealthz(gw.gateway.url, () => stop);
    const healthz = probe.timings;

    await new Promise((resolve) => setTimeout(resolve, 500)); // the load is on
    const healthy = await pacedSseRequest(gw.gateway.url, AUTH);
    stop = true;
    for (const socket of sockets) socket.destroy();
    await Promise.all([...hostile, probe.done]);
    quiet.after();

    const largestGap = largestPieceGap(healthy);
    const slowestHealthz = Math.max(...healthz);
    console.log(
      `hostile load: ${hostileRequests} hostile requests; healthy stream ${healthy.pieces.length} pieces in ${Math.round(healthy.pieces.at(-1)?.at ?? 0)} ms, largest gap ${Math.round(largestGap)} ms; ` +
        `/healthz ${healthz.length} probes, slowest ${Math.round(slowestHealthz)} ms (${described(quiet)})`,
    );
    expect(healthy.status).toBe(200);
    expect(healthy.body).toContain('data: [DONE]');
    expect(healthy.body).not.toContain('event: error');
    expect(healthy.pieces.length).toBeGreaterThan(10);
    expect(healthz.length).toBeGreaterThan(5);
    expect(largestGap).toBeLessThan(allowances(quiet).gap);
    expect(slowestHealthz).toBeLessThan(allowances(quiet).healthz);
  }, 45_000);

  it('ends clients that never read a long stream (write stall deadline), releasing their upstream requests, while the others flow', async () => {
    const quiet = await quietBaseline();
    let stop = false;
    let nonReading = 0;
    const sockets: Socket[] = [];
    const logsBefore = gw.logs.length;
    // Four clients that never read, arriving while the healthy stream runs. Without the deadline they held their
    // requests — and upstream connections — for as long as their sockets lived.
    const clients = [0, 1, 2, 3].map(async (k) => {
      await new Promise((resolve) => setTimeout(resolve, 500 * k));
      if (!stop && nonReading++ < MAX_NON_READING) {
        const socket = rawSocket(
          `POST /chat/stream HTTP/1.1\r\nHost: x\r\nAuthorization: ${HOSTILE.Authorization}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(LONG)}\r\n\r\n${LONG}`,
        );
        socket.pause(); // never read
        sockets.push(socket);
        // A paused socket does not see the server's close: it is destroyed at the end (bounded by the test).
        const started = performance.now();
        while (performance.now() - started < 8000 && !stop) await new Promise((resolve) => setTimeout(resolve, 50));
        socket.destroy();
      }
    });
    const probe = probeHealthz(gw.gateway.url, () => stop);
    const healthz = probe.timings;

    await new Promise((resolve) => setTimeout(resolve, 300)); // the first is in
    const healthy = await pacedSseRequest(gw.gateway.url, AUTH);
    // the last one in has had its deadline (bounded)
    for (const started = performance.now(); gw.logs.length - logsBefore < 5 && performance.now() - started < 5000; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    stop = true;
    for (const socket of sockets) socket.destroy();
    await Promise.all([...clients, probe.done]);
    quiet.after();

    const largestGap = largestPieceGap(healthy);
    const slowestHealthz = Math.max(...healthz);
    const stalled = gw.logs.slice(logsBefore).filter((entry) => entry.error?.code === 'client_stalled');
    const long = gw.emulator.requests.filter((request) => (request.body as { model?: string } | undefined)?.model === LONG_MODEL);
    console.log(
      `non-reading clients: ${nonReading} requests, ${stalled.length} ended by the ${STALL_MS} ms write stall deadline; healthy stream ${healthy.pieces.length} pieces, ` +
        `largest gap ${Math.round(largestGap)} ms; /healthz ${healthz.length} probes, slowest ${Math.round(slowestHealthz)} ms (${described(quiet)})`,
    );
    expect(healthy.status).toBe(200);
    expect(healthy.body).toContain('data: [DONE]');
    expect(healthy.pieces.length).toBeGreaterThan(10);
    expect(healthz.length).toBeGreaterThan(5);
    expect(largestGap).toBeLessThan(allowances(quiet).gap);
    expect(slowestHealthz).toBeLessThan(allowances(quiet).healthz);
    // the four non-reading clients were ended by the deadline …
    expect(stalled).toHaveLength(4);
    expect(stalled.every((entry) => entry.status === 200 && entry.result === 'failed')).toBe(true);
    // … and its upstream request abandoned (the connection released), not held or read to its end
    expect(long).toHaveLength(4);
    await Promise.all(long.map((request) => request.closed));
    expect(long.every((request) => request.closedEarly && !request.completed)).toBe(true);
  }, 45_000);
});
