/**
 * Performance III (issue 35): the gateway next to the raw pipe, the floor proxy and a peer gateway (Portkey), in one
 * run with the contestants interleaved; then 10,000 concurrent open streams in one chatflux process, and head-of-line
 * blocking (one huge answer beside 200 small streams). Every phase is bounded in time and requests and stops by itself;
 * every process started here is stopped here (by its handle).
 */
import { request as httpRequest, Agent, type IncomingMessage } from 'node:http';
import autocannon from 'autocannon';
import { answer2000, type Role } from './gateway/servers.js';
import { installPortkey, PORTKEY } from './gateway/portkey.js';
import { spawn, textOf, type Proc, type SpawnConfig, type Target } from './gatewayLoad.js';
import { median } from './lib/median.js';

/** One contestant: a server process role, the path it answers on, and how a client asks it. */
export interface PeerContestant {
  /** Short key (tables, ratios). */
  key: 'direct' | 'raw' | 'floor' | 'sse' | 'v1' | 'portkey';
  name: string;
  role: Role | 'direct';
  path: string;
  wire: Target['wire'];
  /** `stream: true` in the request body (the OpenAI-shaped endpoints stream only then). */
  stream: boolean;
  /** Extra request headers, given the upstream's URL. */
  headers?: (upstream: string) => Record<string, string>;
}

export const PEER_CONTESTANTS: PeerContestant[] = [
  {
    key: 'direct',
    name: 'direct (no proxy)',
    role: 'direct',
    path: '/v1/chat/completions',
    wire: 'upstream-sse',
    stream: true,
  },
  { key: 'raw', name: 'raw pipe proxy', role: 'raw', path: '/v1/chat/completions', wire: 'upstream-sse', stream: true },
  { key: 'floor', name: 'floor proxy (SSE)', role: 'floor', path: '/chat/sse', wire: 'spec-sse', stream: false },
  { key: 'sse', name: 'chatflux /chat/sse', role: 'chatflux', path: '/chat/sse', wire: 'spec-sse', stream: false },
  {
    key: 'v1',
    name: 'chatflux /v1/chat/completions',
    role: 'chatflux',
    path: '/v1/chat/completions',
    wire: 'upstream-sse',
    stream: true,
  },
  {
    key: 'portkey',
    name: `Portkey ${PORTKEY.split('@').at(-1)!}`,
    role: 'portkey',
    path: '/v1/chat/completions',
    wire: 'upstream-sse',
    stream: true,
    // Its OpenAI provider, pointed at the loopback upstream (127.0.0.1 is one of its default trusted hosts).
    headers: (upstream) => ({
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${upstream}/v1`,
      authorization: 'Bearer sk-bench',
    }),
  },
];

/** The sizes of a run: `quick` is a smoke test of the harness (seconds), not a measurement. */
export interface PeerSizes {
  rounds: number;
  loadSeconds: number;
  warmupSeconds: number;
  connections: number;
  ttfbProbes: number;
  ttfbWarmup: number;
  heldStreams: number;
  scaleSteps: number[];
  holSmallStreams: number;
  holBaselineMs: number;
  holToolBytes: number;
  holTextDeltas: number;
}

export function peerSizes(quick: boolean): PeerSizes {
  return quick
    ? {
        rounds: 1,
        // 32 answers at once through a gateway finish together after ~1 s on a busy machine: a 1 s run counts none.
        loadSeconds: 2,
        warmupSeconds: 0.5,
        connections: 32,
        ttfbProbes: 6,
        ttfbWarmup: 2,
        heldStreams: 50,
        scaleSteps: [100, 200, 400],
        holSmallStreams: 50,
        holBaselineMs: 500,
        holToolBytes: 64 * 1024,
        holTextDeltas: 5_000,
      }
    : {
        rounds: 3,
        loadSeconds: 4,
        warmupSeconds: 1,
        connections: 32,
        ttfbProbes: 40,
        ttfbWarmup: 6,
        heldStreams: 500,
        scaleSteps: [2_500, 5_000, 10_000],
        holSmallStreams: 200,
        holBaselineMs: 2_000,
        holToolBytes: 1024 * 1024,
        holTextDeltas: 100_000,
      };
}

/** One load run of one contestant. */
export interface PeerLoad {
  round: number;
  answersPerSec: number;
  cpuMsPerAnswer?: number;
  errors: number;
}

/** The figures of one contestant in one run (`status` other than `ok`: why it was skipped). */
export interface PeerRow {
  key: PeerContestant['key'];
  name: string;
  status: string;
  loads: PeerLoad[];
  /** Median time to the first body byte over the interleaved probes, ms. */
  ttfbMs?: number;
  heldStreams?: number;
  rssPerStreamKb?: number;
  heapPerStreamKb?: number;
}

export interface ScaleStep {
  streams: number;
  rssMb: number;
  heapMb: number;
  rssPerStreamKb: number;
  heapPerStreamKb: number;
  secondsToOpen: number;
}

export interface ScaleResult {
  status: string;
  idleRssMb?: number;
  idleHeapMb?: number;
  steps: ScaleStep[];
}

export interface HolWindow {
  label: string;
  /** The big answer's size (upstream bytes), 0 for the baseline. */
  bytes: number;
  /** How long the big answer took through the gateway, ms. */
  durationMs?: number;
  /** The largest gap between two consecutive reads of any small stream during the window, ms. */
  largestGapMs: number;
  /** The 99th percentile of the small streams' gaps in the window, ms. */
  p99GapMs: number;
}

export interface HolResult {
  status: string;
  smallStreams: number;
  tickMs: number;
  windows: HolWindow[];
}

/** One run of the whole Performance III section. */
export interface PeerRun {
  quick: boolean;
  sizes: PeerSizes;
  rows: PeerRow[];
  scale: ScaleResult;
  hol: HolResult;
  loadBefore: number[];
  loadAfter: number[];
  seconds: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function bodyOf(contestant: PeerContestant, model: string): string {
  return JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    ...(contestant.stream ? { stream: true } : {}),
  });
}

function headersOf(contestant: PeerContestant, upstream: string, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...contestant.headers?.(upstream),
  };
}

function post(
  url: string,
  contestant: PeerContestant,
  upstream: string,
  model: string,
  agent: Agent | false,
  onResponse: (res: IncomingMessage) => void,
) {
  const body = bodyOf(contestant, model);
  const req = httpRequest(url, { method: 'POST', agent, headers: headersOf(contestant, upstream, body) });
  req.on('response', onResponse);
  req.end(body);
  return req;
}

function fetchAll(
  url: string,
  contestant: PeerContestant,
  upstream: string,
  model: string,
): Promise<{ status: number; body: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = post(url, contestant, upstream, model, false, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (p: Buffer) => parts.push(p));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString(), ms: performance.now() - start }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
  });
}

/**
 * Opens `n` streams of `model` (in batches, each batch waiting for its streams' first bytes: a burst of thousands of
 * connections would overflow the listen backlog); returns them (destroy each to end it).
 */
async function openStreams(
  n: number,
  url: string,
  contestant: PeerContestant,
  upstream: string,
  model: string,
  onData?: (stream: number, at: number) => void,
  batch = 250,
): Promise<Array<ReturnType<typeof post>>> {
  const requests: Array<ReturnType<typeof post>> = [];
  for (let opened = 0; opened < n;) {
    const size = Math.min(batch, n - opened);
    let started = 0;
    let failure: string | undefined;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${opened + started}/${n} streams started (${failure ?? 'no error'})`)),
        60_000,
      );
      const fail = (message: string) => {
        failure ??= message;
      };
      for (let i = 0; i < size; i++) {
        const id = opened + i;
        const req = post(url, contestant, upstream, model, false, (res) => {
          if (res.statusCode !== 200) fail(`HTTP ${res.statusCode}`);
          res.once('data', () => {
            if (++started === size) {
              clearTimeout(timer);
              resolve();
            }
          });
          res.on('data', () => onData?.(id, performance.now()));
          res.on('error', () => undefined);
        });
        req.on('error', (error) => fail(error.message));
        requests.push(req);
      }
    }).catch((error: unknown) => {
      for (const req of requests) req.destroy();
      throw error;
    });
    opened += size;
  }
  return requests;
}

async function closeStreams(requests: Array<{ destroy(): void }>, waitMs = 1000): Promise<void> {
  for (const req of requests) req.destroy();
  await sleep(waitMs);
}

function load(url: string, contestant: PeerContestant, upstream: string, seconds: number, connections: number) {
  const body = bodyOf(contestant, 'bench-2000');
  const headers = headersOf(contestant, upstream, body);
  delete headers['content-length'];
  return autocannon({ url, method: 'POST', connections, duration: seconds, timeout: 20, headers, body });
}

/** Time to the first body byte of one request on a keep-alive agent (the response is read to its end). */
function probe(url: string, contestant: PeerContestant, upstream: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = post(url, contestant, upstream, 'bench-2000', agent, (res) => {
      res.once('data', () => {
        const ms = performance.now() - start;
        res.resume();
        res.on('end', () => resolve(ms));
      });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
  });
}

/** RSS and heap + external per open stream, `n` `bench-hold` streams held at once (after a GC, before and during). */
async function heldStreams(
  proc: Proc,
  url: string,
  contestant: PeerContestant,
  upstream: string,
  n: number,
): Promise<Pick<PeerRow, 'heldStreams' | 'rssPerStreamKb' | 'heapPerStreamKb'>> {
  const idle = await proc.stats(true);
  const requests = await openStreams(n, url, contestant, upstream, 'bench-hold');
  try {
    await sleep(1500);
    const loaded = await proc.stats(true);
    return {
      heldStreams: n,
      rssPerStreamKb: ((loaded.rssMb - idle.rssMb) * 1024) / n,
      heapPerStreamKb: ((loaded.heapMb - idle.heapMb) * 1024) / n,
    };
  } finally {
    await closeStreams(requests);
  }
}

const CHATFLUX_ENV = (connections: number): SpawnConfig['env'] => ({
  // Enough upstream connections for every held stream (the gateway's default pool is 128).
  BENCH_CHATFLUX_ENV: JSON.stringify({ CHATFLUX_UPSTREAM_CONNECTIONS: String(connections) }),
});

/** The interleaved comparison: correctness, held streams, load rounds, TTFB probes. */
async function compare(upstream: Proc, sizes: PeerSizes, log: (line: string) => void): Promise<PeerRow[]> {
  const expected = answer2000().text;
  const procs = new Map<Role | 'direct', Proc | string>([['direct', upstream]]);
  const rows: PeerRow[] = [];
  try {
    for (const contestant of PEER_CONTESTANTS) {
      if (procs.has(contestant.role)) continue;
      let proc: Proc | string;
      if (contestant.role === 'portkey') {
        const installed = installPortkey(log);
        proc =
          'server' in installed
            ? await spawn('portkey', upstream.url, [], { args: [installed.server], nofile: 65536, quiet: true })
            : installed.unavailable;
      } else {
        proc = await spawn(contestant.role as Role, upstream.url, [], {
          nofile: 65536,
          ...(contestant.role === 'chatflux' ? { env: CHATFLUX_ENV(4096) } : {}),
        });
      }
      procs.set(contestant.role, proc);
    }
    const live: Array<{ contestant: PeerContestant; proc: Proc; url: string; row: PeerRow }> = [];
    for (const contestant of PEER_CONTESTANTS) {
      const row: PeerRow = { key: contestant.key, name: contestant.name, status: 'ok', loads: [] };
      rows.push(row);
      const proc = procs.get(contestant.role)!;
      if (typeof proc === 'string') {
        row.status = `not available: ${proc}`;
        log(`  ${contestant.name}: SKIPPED — ${row.status}`);
        continue;
      }
      const url = `${proc.url}${contestant.path}`;
      // Correctness first: the answer through this contestant must be the upstream's text, exactly.
      try {
        const { status, body } = await fetchAll(url, contestant, upstream.url, 'bench-2000');
        const got = status === 200 ? textOf(body, contestant.wire) : `HTTP ${status}: ${body.slice(0, 200)}`;
        if (got !== expected)
          throw new Error(`wrong answer (${got.length} chars, want ${expected.length}): ${got.slice(0, 120)}`);
      } catch (error) {
        row.status = `does not stream the answer correctly: ${(error as Error).message}`;
        log(`  ${contestant.name}: SKIPPED — ${row.status}`);
        continue;
      }
      log(`  ${contestant.name}: answer ok`);
      live.push({ contestant, proc, url, row });
    }
    // Memory before load, so that the baselines are not the heap a load run left behind.
    for (const { contestant, proc, url, row } of live) {
      if (contestant.key === 'direct') continue;
      try {
        Object.assign(row, await heldStreams(proc, url, contestant, upstream.url, sizes.heldStreams));
        log(
          `  ${contestant.name}: ${sizes.heldStreams} held streams, ${row.rssPerStreamKb!.toFixed(1)} KB RSS, ${row.heapPerStreamKb!.toFixed(1)} KB heap + external each`,
        );
      } catch (error) {
        log(`  ${contestant.name}: held streams failed: ${(error as Error).message}`);
      }
    }
    // Load rounds, interleaved: each round runs every contestant once, the order rotated round by round.
    for (let round = 0; round < sizes.rounds; round++) {
      const order = live.map((_, i) => live[(i + round) % live.length]!);
      for (const { contestant, proc, url, row } of order) {
        await load(
          url,
          contestant,
          upstream.url,
          round === 0 ? sizes.warmupSeconds * 2 : sizes.warmupSeconds,
          sizes.connections,
        );
        const before = await proc.stats();
        const upBefore = await upstream.stats();
        const result = await load(url, contestant, upstream.url, sizes.loadSeconds, sizes.connections);
        const after = await proc.stats();
        const upAfter = await upstream.stats();
        const answers = upAfter.completed - upBefore.completed;
        const cpu = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
        const entry: PeerLoad = {
          round: round + 1,
          answersPerSec: result['2xx'] / result.duration,
          ...(answers > 0 ? { cpuMsPerAnswer: cpu / answers } : {}),
          errors: result.errors + result.timeouts + result.non2xx,
        };
        row.loads.push(entry);
        log(
          `  round ${round + 1} ${contestant.name}: ${entry.answersPerSec.toFixed(0)} answers/s, CPU ${entry.cpuMsPerAnswer?.toFixed(2) ?? '—'} ms/answer${entry.errors ? `, ${entry.errors} errors` : ''}`,
        );
      }
    }
    // Time to first byte, interleaved: probe i goes to every contestant in turn (warm: after the load rounds).
    const agents = live.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
    const times: number[][] = live.map(() => []);
    for (let i = 0; i < sizes.ttfbWarmup + sizes.ttfbProbes; i++) {
      for (const [k, { contestant, url }] of live.entries()) {
        const ms = await probe(url, contestant, upstream.url, agents[k]!);
        if (i >= sizes.ttfbWarmup) times[k]!.push(ms);
      }
    }
    for (const agent of agents) agent.destroy();
    for (const [k, { row }] of live.entries()) row.ttfbMs = median(times[k]!);
    log(`  TTFB medians: ${live.map(({ row }) => `${row.name} ${row.ttfbMs!.toFixed(2)} ms`).join(', ')}`);
  } finally {
    for (const proc of procs.values()) if (typeof proc !== 'string' && proc !== upstream) await proc.close();
  }
  return rows;
}

const SSE = PEER_CONTESTANTS.find((c) => c.key === 'sse')!;

/** Opens streams up to each step in one fresh chatflux process; RSS and heap + external per stream at each. */
async function scale(upstream: Proc, sizes: PeerSizes, log: (line: string) => void): Promise<ScaleResult> {
  const largest = sizes.scaleSteps.at(-1)!;
  const proc = await spawn('chatflux', upstream.url, [], {
    nofile: largest * 3 + 4096,
    env: CHATFLUX_ENV(largest + 512),
  });
  if (typeof proc === 'string') return { status: `chatflux did not start: ${proc}`, steps: [] };
  const requests: Array<{ destroy(): void }> = [];
  const result: ScaleResult = { status: 'ok', steps: [] };
  try {
    const idle = await proc.stats(true);
    result.idleRssMb = idle.rssMb;
    result.idleHeapMb = idle.heapMb;
    const url = `${proc.url}${SSE.path}`;
    for (const streams of sizes.scaleSteps) {
      const start = performance.now();
      requests.push(...(await openStreams(streams - requests.length, url, SSE, upstream.url, 'bench-hold')));
      const secondsToOpen = (performance.now() - start) / 1000;
      await sleep(1500);
      const s = await proc.stats(true);
      const step: ScaleStep = {
        streams,
        rssMb: s.rssMb,
        heapMb: s.heapMb,
        rssPerStreamKb: ((s.rssMb - idle.rssMb) * 1024) / streams,
        heapPerStreamKb: ((s.heapMb - idle.heapMb) * 1024) / streams,
        secondsToOpen,
      };
      result.steps.push(step);
      log(
        `  ${streams} open streams: RSS ${s.rssMb.toFixed(0)} MB, ${step.rssPerStreamKb.toFixed(1)} KB RSS and ${step.heapPerStreamKb.toFixed(1)} KB heap + external per stream (opened in ${secondsToOpen.toFixed(1)} s)`,
      );
    }
  } catch (error) {
    result.status = (error as Error).message;
    log(`  scale: FAILED — ${result.status}`);
  } finally {
    await closeStreams(requests, 2000);
    await proc.close();
  }
  return result;
}

/**
 * Head-of-line blocking: small `bench-tick` streams (a delta every 10 ms) through one chatflux process; the largest
 * gap between two reads of any of them, first alone (the baseline), then while one huge answer (a 1 MB tool call; a
 * 100,000-delta text) goes through the same process.
 */
async function headOfLine(upstream: Proc, sizes: PeerSizes, log: (line: string) => void): Promise<HolResult> {
  const result: HolResult = { status: 'ok', smallStreams: sizes.holSmallStreams, tickMs: 10, windows: [] };
  const bigs = [
    {
      label: `one tool call of ${(sizes.holToolBytes / 1048576).toFixed(sizes.holToolBytes < 1048576 ? 2 : 0)} MB arguments`,
      model: `bench-big-tool-${sizes.holToolBytes}`,
    },
    {
      label: `one text of ${sizes.holTextDeltas.toLocaleString('en')} deltas`,
      model: `bench-big-text-${sizes.holTextDeltas}`,
    },
  ];
  const direct = PEER_CONTESTANTS.find((c) => c.key === 'direct')!;
  // Built by the upstream on first request: built now, so that building them does not stall the small streams.
  const bigBytes = new Map<string, number>();
  for (const big of bigs) {
    const { body } = await fetchAll(`${upstream.url}${direct.path}`, direct, upstream.url, big.model);
    bigBytes.set(big.model, Buffer.byteLength(body));
  }
  const proc = await spawn('chatflux', upstream.url, [], { nofile: 65536, env: CHATFLUX_ENV(1024) });
  if (typeof proc === 'string') return { ...result, status: `chatflux did not start: ${proc}` };
  const url = `${proc.url}${SSE.path}`;
  const last = new Float64Array(sizes.holSmallStreams);
  let gaps: number[] | undefined;
  let requests: Array<{ destroy(): void }> = [];
  const window = (): { largestGapMs: number; p99GapMs: number } => {
    const now = performance.now();
    const all = gaps!;
    for (const at of last) all.push(now - at); // a stream still waiting at the window's end
    gaps = undefined;
    all.sort((a, b) => a - b);
    return { largestGapMs: all.at(-1) ?? NaN, p99GapMs: all[Math.floor(all.length * 0.99)] ?? NaN };
  };
  try {
    // Warm the process up with the huge answers once (JIT), not measured.
    for (const big of bigs) await fetchAll(url, SSE, upstream.url, big.model);
    requests = await openStreams(sizes.holSmallStreams, url, SSE, upstream.url, 'bench-tick', (id, at) => {
      if (gaps !== undefined) gaps.push(at - last[id]!);
      last[id] = at;
    });
    await sleep(500);
    gaps = [];
    await sleep(sizes.holBaselineMs);
    result.windows.push({ label: 'none (baseline: the small streams alone)', bytes: 0, ...window() });
    for (const big of bigs) {
      gaps = [];
      const { status, body, ms } = await fetchAll(url, SSE, upstream.url, big.model);
      if (status !== 200 || body.includes('event: error'))
        throw new Error(`${big.label}: HTTP ${status} ${body.slice(0, 200)}`);
      await sleep(50);
      const w: HolWindow = { label: big.label, bytes: bigBytes.get(big.model)!, durationMs: ms, ...window() };
      result.windows.push(w);
      log(
        `  head-of-line, ${big.label} (${(w.bytes / 1048576).toFixed(1)} MB, ${ms.toFixed(0)} ms through the gateway): largest gap of ${sizes.holSmallStreams} small streams ${w.largestGapMs.toFixed(1)} ms (p99 ${w.p99GapMs.toFixed(1)} ms)`,
      );
      await sleep(500);
    }
    log(`  head-of-line baseline: largest gap ${result.windows[0]!.largestGapMs.toFixed(1)} ms`);
  } catch (error) {
    result.status = (error as Error).message;
    log(`  head-of-line: FAILED — ${result.status}`);
  } finally {
    gaps = undefined;
    await closeStreams(requests, 500);
    await proc.close();
  }
  return result;
}

/** Runs the whole Performance III section once. */
export async function runPeerBench({ quick, log }: { quick: boolean; log: (line: string) => void }): Promise<PeerRun> {
  const { loadavg } = await import('node:os');
  const started = Date.now();
  const loadBefore = loadavg();
  const sizes = peerSizes(quick);
  const upstream = await spawn('upstream', '', [], { nofile: sizes.scaleSteps.at(-1)! * 2 + 4096 });
  if (typeof upstream === 'string') throw new Error(`upstream did not start: ${upstream}`);
  try {
    log('performance III: contestants interleaved');
    const rows = await compare(upstream, sizes, log);
    log(`performance III: ${sizes.scaleSteps.join(' / ')} open streams in one chatflux process`);
    const scaled = await scale(upstream, sizes, log);
    log('performance III: head-of-line');
    const hol = await headOfLine(upstream, sizes, log);
    return {
      quick,
      sizes,
      rows,
      scale: scaled,
      hol,
      loadBefore,
      loadAfter: loadavg(),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await upstream.close();
  }
}
