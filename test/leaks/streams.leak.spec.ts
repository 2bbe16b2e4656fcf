/**
 * Leak checks through the real gateway: many sequential and concurrent streams, half of them aborted by the client
 * at a random (seeded) point. Afterwards: no upstream request in flight and none left open (every aborted one closed
 * at the upstream), no timers or sockets beyond the baseline, the heap back near its baseline after a forced GC.
 *
 * CI sizes keep this suite well under a minute on 2 cores; `npm run test:soak` (LEAK_SOAK=1) runs the full
 * 10,000 sequential and 500 concurrent streams.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent } from 'undici';
import { createSeededRandom } from '../../src/testing/createSeededRandom';
import type { EmulatorRequest } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import type { Endpoint } from '../helpers/wireAssertions';
import { AUTH, startFaultGateway, type FaultGateway } from '../faults/startFaultGateway';

const SOAK = process.env['LEAK_SOAK'] === '1';
const SEQUENTIAL = SOAK ? 10_000 : 2000;
const CONCURRENT = 500;
const BATCH = 100;
const HEAP_MARGIN = 16 * 1024 * 1024;
jest.setTimeout(SOAK ? 900_000 : 120_000);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
const random = createSeededRandom(20261122);

let agent: Agent;
let gw: FaultGateway;
let resourcesBefore: Record<string, number>;

const countResources = (): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
};
/** How long the gateway keeps a finished answer for a resume, in ms (CHATFLUX_STREAM_RETENTION_MS: its minimum). */
const RETENTION_MS = 1000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const heapAfterGc = async (): Promise<number> => {
  for (let i = 0; i < 3; i += 1) {
    gc();
    await sleep(20);
  }
  return process.memoryUsage().heapUsed;
};
const upstreamStats = (): { connected: number; pending: number; running: number } => {
  const all = Object.values(agent.stats) as Array<{ connected: number; pending: number; running: number }>;
  return all.reduce(
    (sum, s) => ({
      connected: sum.connected + s.connected,
      pending: sum.pending + s.pending,
      running: sum.running + s.running,
    }),
    { connected: 0, pending: 0, running: 0 },
  );
};
/** Waits (bounded) until no upstream request runs or waits. */
const upstreamIdle = async (): Promise<void> => {
  for (let i = 0; i < 100 && (upstreamStats().running > 0 || upstreamStats().pending > 0); i += 1) await sleep(50);
  expect(upstreamStats()).toMatchObject({ running: 0, pending: 0 });
};

interface Sent {
  tag: string;
  abortAfter: number | undefined;
  aborted: boolean;
}

/** One stream, aborted after `abortAfter` body pieces when given; every request has a deadline. */
async function stream(
  tag: string,
  endpoint: Endpoint,
  scenario: string,
  abortAfter: number | undefined,
): Promise<Sent> {
  let pieces = 0;
  let aborted = false;
  // A deadline of our own, cleared at the end (AbortSignal.timeout would hold every response until it fires). It
  // catches a stream that never ends; it is not a speed target: the 500 concurrent streams share one thread with the
  // gateway and the emulator and all finish together, after 8 s on a machine at load 5, so the margin is wide.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), 60_000);
  const res = await rawRequest(`${gw.gateway.url}${endpoint}`, {
    headers: AUTH,
    body: { model: `deepseek-chat#${scenario}`, messages: [{ role: 'user', content: tag }] },
    signal: deadline.signal,
    onPiece: () => {
      pieces += 1;
      if (abortAfter !== undefined && pieces >= abortAfter) {
        aborted = true;
        return 'abort';
      }
      return undefined;
    },
  }).finally(() => clearTimeout(timer));
  expect(deadline.signal.aborted).toBe(false);
  if (!aborted)
    expect({ tag, status: res.status, done: /"done":true|\[DONE\]/.test(res.body) }).toEqual({
      tag,
      status: 200,
      done: true,
    });
  return { tag, abortAfter, aborted };
}

/** The upstream record of a request, by its unique message. */
const upstreamOf = (tag: string): EmulatorRequest | undefined =>
  gw.emulator.requests.find(
    (r) => (r.body as { messages?: Array<{ content?: string }> } | undefined)?.messages?.[0]?.content === tag,
  );

/** Checks a finished batch against the upstream, then forgets it (so the test itself holds no growing state). */
async function settle(sent: Sent[], strictAbort: boolean): Promise<void> {
  await upstreamIdle();
  for (const s of sent) {
    const upstream = upstreamOf(s.tag);
    expect({ tag: s.tag, seen: upstream !== undefined }).toEqual({ tag: s.tag, seen: true });
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      upstream?.closed.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(r, 3000, false))),
    ]);
    clearTimeout(timer);
    expect({ tag: s.tag, closed }).toEqual({ tag: s.tag, closed: true });
    if (s.aborted && strictAbort)
      expect({ tag: s.tag, closedEarly: upstream?.closedEarly }).toEqual({ tag: s.tag, closedEarly: true });
    if (!s.aborted) expect({ tag: s.tag, completed: upstream?.completed }).toEqual({ tag: s.tag, completed: true });
  }
  gw.emulator.requests.splice(0);
  gw.logs.splice(0);
}

beforeAll(async () => {
  resourcesBefore = countResources();
  agent = new Agent({ connections: 600, keepAliveTimeout: 300, keepAliveMaxTimeout: 300 });
  // 500 concurrent streams with one key: no per-client limit (its own dispatcher: no connection slots either).
  gw = await startFaultGateway({
    dispatcher: agent,
    // The shortest retention of finished answers (resumable, in memory): the heap is measured after it has passed.
    env: { CHATFLUX_HEARTBEAT_MS: '50', CHATFLUX_MAX_RETRIES: '0', CHATFLUX_MAX_CONCURRENT_PER_CLIENT: '0', CHATFLUX_STREAM_RETENTION_MS: String(RETENTION_MS) },
  });
});
let closed = false;
const closeAll = async (): Promise<void> => {
  if (closed) return;
  closed = true;
  await gw.close();
  await agent.close();
};
afterAll(closeAll);

describe('no leaks across many streams, half aborted by the client', () => {
  let heapBaseline = 0;
  let timersBaseline = 0;

  it('warms up and takes the baseline', async () => {
    const warm: Sent[] = [];
    for (let i = 0; i < 30; i += 1)
      warm.push(await stream(`warm ${i}`, ENDPOINTS[i % 3] as Endpoint, 'tokens=20', i % 2 === 0 ? 2 : undefined));
    await settle(warm, false);
    heapBaseline = await heapAfterGc();
    timersBaseline = countResources()['Timeout'] ?? 0;
    expect(heapBaseline).toBeGreaterThan(0);
  });

  it(`${SEQUENTIAL} sequential streams`, async () => {
    for (let start = 0; start < SEQUENTIAL; start += BATCH) {
      const sent: Sent[] = [];
      for (let i = start; i < Math.min(SEQUENTIAL, start + BATCH); i += 1) {
        const abortAfter = random.next() < 0.5 ? 1 + random.int(6) : undefined;
        sent.push(await stream(`seq ${i}`, random.pick(ENDPOINTS), 'tokens=24', abortAfter));
      }
      await settle(sent, false);
    }
  });

  it(`${CONCURRENT} concurrent streams; every aborted one is closed at the upstream`, async () => {
    // Paced, so that an abort lands while the upstream is still writing.
    const jobs = Array.from({ length: CONCURRENT }, (_, i) => {
      const abortAfter = i % 2 === 0 ? 1 + random.int(8) : undefined;
      return stream(`conc ${i}`, random.pick(['/chat/stream', '/chat/sse'] as const), 'tokens=40;pace=15', abortAfter);
    });
    const sent = await Promise.all(jobs);
    expect(sent.filter((s) => s.aborted).length).toBe(Math.ceil(CONCURRENT / 2));
    await settle(sent, true);
  });

  it('afterwards: nothing in flight upstream, no timers beyond the baseline, heap back near the baseline', async () => {
    await upstreamIdle();
    // Idle keep-alive connections expire (300 ms here): then no socket to the upstream is left open at all.
    for (let i = 0; i < 60 && upstreamStats().connected > 0; i += 1) await sleep(50);
    expect(upstreamStats()).toEqual({ connected: 0, pending: 0, running: 0 });
    // Timers with a short life of their own (undici's shared timer tick while its last sockets expire) may still run
    // for a moment under load: give them the same bounded settling time as the sockets. A timer leaked per stream, or
    // one that re-arms itself, is still there after it.
    for (let i = 0; i < 60 && (countResources()['Timeout'] ?? 0) > timersBaseline; i += 1) await sleep(50);
    expect(countResources()['Timeout'] ?? 0).toBeLessThanOrEqual(timersBaseline);
    await sleep(RETENTION_MS + 500); // the finished answers' logs are let go once their retention has passed
    const heap = await heapAfterGc();
    expect(heap - heapBaseline).toBeLessThan(HEAP_MARGIN);
  });

  it('after closing the gateway and its pool: no socket, server or timer left beyond the start', async () => {
    await closeAll();
    await sleep(50);
    const now = countResources();
    for (const [name, count] of Object.entries(now)) {
      expect({ name, count }).toEqual({ name, count: Math.min(count, resourcesBefore[name] ?? 0) });
    }
  });
});
