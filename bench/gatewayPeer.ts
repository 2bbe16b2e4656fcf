/**
 * Performance III (issue 35): the gateway next to the raw pipe, the floor proxy and a peer gateway (Portkey), in one
 * run with the contestants interleaved; then 10,000 concurrent open streams in one chatflux process, and head-of-line
 * blocking (one huge answer beside 200 small streams). Every phase is bounded in time and requests and stops by itself;
 * every process started here is stopped here (by its handle).
 */
import { request as httpRequest, Agent, type IncomingMessage } from 'node:http';
import { answerDs2000, dsModel, type Role, type UpstreamMode } from './gateway/servers.js';
import { installPortkey, PORTKEY } from './gateway/portkey.js';
import { effectiveNofile, spawn, textOf, type Proc, type SpawnConfig, type Target } from './gatewayLoad.js';
import { firstByteMs } from './lib/firstByteMs.js';
import { median } from './lib/median.js';
import { startHolReader } from './gateway/holReader.js';

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
  /** How long open streams settle before the memory is sampled, and closed ones before the next phase, ms. */
  settleMs: number;
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
        settleMs: 1_500,
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
        settleMs: 1_500,
      };
}

/**
 * The upstream's ways of writing the answer, the judged one first: `streamed` (one write per SSE event, each its own
 * HTTP chunk, as a provider flushes each event as it is produced: what the issue measured), `atOnce` (the whole answer in one `end`: a proxy that
 * pipes bytes forwards a few 64 KB reads while a parsing one handles every event; kept beside it, for reference).
 */
export const UPSTREAM_MODES: readonly UpstreamMode[] = ['streamed', 'atOnce'];

/** One load run of one contestant. */
export interface PeerLoad {
  round: number;
  /** How the upstream wrote the answers of this run. */
  mode: UpstreamMode;
  /** Answers received per second: body bytes received ÷ the bytes of one answer's body ÷ seconds. */
  answersPerSec: number;
  /** Whole responses completed in the window. */
  completed: number;
  /** The process's CPU time over the window ÷ answers received (as counted for `answersPerSec`). */
  cpuMsPerAnswer?: number;
  errors: number;
}

/** The figures of one contestant in one run (`status` other than `ok`: why it was skipped). */
export interface PeerRow {
  key: PeerContestant['key'];
  name: string;
  status: string;
  loads: PeerLoad[];
  /** The bytes of one answer's body, by upstream mode. */
  bytesPerAnswer?: Partial<Record<UpstreamMode, number>>;
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
  /** Streams that failed before their first byte (a reset connection) and were opened again. */
  retried: number;
  /** The gateway process's open-file limit. */
  fdLimit?: number;
  /**
   * The most streams that limit allows (two sockets each, client and upstream, and 512 files to spare), when it is
   * below the largest step: the last step is then this many.
   */
  cappedAt?: number;
  steps: ScaleStep[];
}

export interface HolWindow {
  label: string;
  /** The big answer's size (upstream bytes), 0 for the baseline. */
  bytes: number;
  /** How long the big answer took through the gateway, ms. */
  durationMs?: number;
  /**
   * The largest gap between two consecutive reads of any small stream during the window, ms (read in a process of its
   * own that does nothing else: bench/gateway/holReader.ts).
   */
  largestGapMs: number;
  /** The 99th percentile of the small streams' gaps in the window, ms. */
  p99GapMs: number;
  /** Reads of the small streams in the window. */
  reads?: number;
  /**
   * The longest delay of the proxy process's own event loop in the window, ms (`monitorEventLoopDelay` in that process):
   * what the process held its loop for, plus any time the shared machine did not schedule it.
   */
  loopDelayMaxMs?: number;
}

export interface HolResult {
  key: PeerContestant['key'];
  name: string;
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
  /** Through chatflux `/chat/sse` (judged), and through the raw pipe (the reference). */
  hol: HolResult[];
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

/** Streams opened by {@link openStreams}. */
interface OpenStreams {
  requests: Array<ReturnType<typeof post>>;
  /** Streams that failed before their first byte (a reset connection) and were opened again. */
  retried: number;
}

/**
 * Opens `n` streams of `model` (in batches, each batch waiting for its streams' first bytes: a burst of thousands of
 * connections would overflow the listen backlog); a stream that fails before its first byte is opened again, up to
 * 2% of `n` (+3) times in all. Returns them (destroy each to end it).
 */
export async function openStreams(
  n: number,
  url: string,
  contestant: PeerContestant,
  upstream: string,
  model: string,
  onData?: (stream: number, at: number) => void,
  batch = 250,
): Promise<OpenStreams> {
  const requests: Array<ReturnType<typeof post>> = [];
  let retried = 0;
  const retries = Math.floor(n / 50) + 3;
  try {
    for (let opened = 0; opened < n;) {
      const size = Math.min(batch, n - opened);
      let started = 0;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${opened + started}/${n} streams started within 60 s`)),
          60_000,
        );
        const give = (id: number): void => {
          let first = true;
          const failed = (message: string): void => {
            if (!first) return;
            first = false;
            if (++retried > retries) {
              clearTimeout(timer);
              reject(new Error(`${retried} streams failed before their first byte (the last: ${message})`));
            } else give(id);
          };
          const req = post(url, contestant, upstream, model, false, (res) => {
            if (res.statusCode !== 200) {
              clearTimeout(timer);
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (part: string) => (text += part));
              res.on('end', () =>
                reject(new Error(`HTTP ${res.statusCode} after ${opened + started} streams: ${text.slice(0, 300)}`)),
              );
              return;
            }
            res.once('data', () => {
              if (!first) return;
              first = false;
              if (++started === size) {
                clearTimeout(timer);
                resolve();
              }
            });
            res.on('data', () => onData?.(id, performance.now()));
            res.on('error', (error) => failed(error.message));
          });
          req.on('error', (error) => failed(error.message));
          requests.push(req);
        };
        for (let i = 0; i < size; i++) give(opened + i);
      });
      opened += size;
    }
  } catch (error) {
    for (const req of requests) req.destroy();
    throw error;
  }
  return { requests, retried };
}

async function closeStreams(requests: Array<{ destroy(): void }>, waitMs = 1000): Promise<void> {
  for (const req of requests) req.destroy();
  await sleep(waitMs);
}

/**
 * A closed-loop load: `connections` clients, each sending its next request as soon as its last answer ended, for
 * `seconds`. Counts the body bytes received inside the window (answers still in flight when it closes count for their
 * part: 32 answers at once through a gateway end together, so counting whole responses alone would move the figure by
 * up to 32 answers a window), then lets the answers in flight end, uncounted (a gateway may go on with an answer whose
 * client left, and would spend the next contestant's window on it).
 */
async function load(
  url: string,
  contestant: PeerContestant,
  upstream: string,
  model: string,
  seconds: number,
  connections: number,
  atEnd: () => Promise<void> = () => Promise.resolve(),
): Promise<{ bytes: number; completed: number; errors: number; seconds: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let measuring = true;
  let bytes = 0;
  let completed = 0;
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const req = post(url, contestant, upstream, model, agent, (res) => {
        if (res.statusCode !== 200) errors++;
        res.on('data', (part: Buffer) => {
          if (measuring) bytes += part.length;
        });
        res.on('end', () => {
          if (measuring) completed++;
          resolve();
        });
        res.on('error', () => {
          errors++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    });
  const start = performance.now();
  const clients = Array.from({ length: connections }, async () => {
    while (measuring) await one();
  });
  await sleep(seconds * 1000);
  measuring = false;
  const elapsed = (performance.now() - start) / 1000;
  await atEnd();
  await Promise.all(clients);
  agent.destroy();
  return { bytes, completed, errors, seconds: elapsed };
}

/** Time to the first body byte of one request on a keep-alive agent (the response is read to its end). */
function probe(url: string, contestant: PeerContestant, upstream: string, agent: Agent): Promise<number> {
  return firstByteMs((onResponse) => post(url, contestant, upstream, dsModel('streamed'), agent, onResponse));
}

/**
 * The process's memory at rest: after a GC, 300 ms, and another GC (right after an answer, one GC leaves pages V8
 * returns to the system only later, and the figure with streams open came out below it).
 */
async function settledStats(proc: Proc) {
  await proc.stats(true);
  await sleep(300);
  return proc.stats(true);
}

/** RSS and heap + external per open stream, `n` `bench-hold` streams held at once (after a GC, before and during). */
async function heldStreams(
  proc: Proc,
  url: string,
  contestant: PeerContestant,
  upstream: string,
  n: number,
  settleMs: number,
): Promise<Pick<PeerRow, 'heldStreams' | 'rssPerStreamKb' | 'heapPerStreamKb'>> {
  const idle = await settledStats(proc);
  const { requests } = await openStreams(n, url, contestant, upstream, 'bench-hold');
  try {
    await sleep(settleMs);
    const loaded = await proc.stats(true);
    return {
      heldStreams: n,
      rssPerStreamKb: ((loaded.rssMb - idle.rssMb) * 1024) / n,
      heapPerStreamKb: ((loaded.heapMb - idle.heapMb) * 1024) / n,
    };
  } finally {
    await closeStreams(requests, settleMs);
  }
}

const CHATFLUX_ENV = (connections: number): SpawnConfig['env'] => ({
  // Enough upstream connections for every held stream (the gateway's default pool is 128).
  BENCH_CHATFLUX_ENV: JSON.stringify({ CHATFLUX_UPSTREAM_CONNECTIONS: String(connections) }),
});

/** The interleaved comparison: correctness, held streams, load rounds, TTFB probes. */
async function compare(
  upstream: Proc,
  sizes: PeerSizes,
  log: (line: string) => void,
  contestants: PeerContestant[],
): Promise<PeerRow[]> {
  const expected = answerDs2000().text;
  const procs = new Map<Role | 'direct', Proc | string>([['direct', upstream]]);
  const rows: PeerRow[] = [];
  try {
    for (const contestant of contestants) {
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
    for (const contestant of contestants) {
      const row: PeerRow = { key: contestant.key, name: contestant.name, status: 'ok', loads: [] };
      rows.push(row);
      const proc = procs.get(contestant.role)!;
      if (typeof proc === 'string') {
        row.status = `not available: ${proc}`;
        log(`  ${contestant.name}: SKIPPED — ${row.status}`);
        continue;
      }
      const url = `${proc.url}${contestant.path}`;
      // Correctness first: the answer through this contestant must be the upstream's text, exactly, in both modes.
      try {
        row.bytesPerAnswer = {};
        for (const mode of UPSTREAM_MODES) {
          const { status, body } = await fetchAll(url, contestant, upstream.url, dsModel(mode));
          const got = status === 200 ? textOf(body, contestant.wire) : `HTTP ${status}: ${body.slice(0, 200)}`;
          if (got !== expected)
            throw new Error(
              `wrong answer, upstream ${mode} (${got.length} chars, want ${expected.length}): ${got.slice(0, 120)}`,
            );
          row.bytesPerAnswer[mode] = Buffer.byteLength(body);
        }
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
        Object.assign(row, await heldStreams(proc, url, contestant, upstream.url, sizes.heldStreams, sizes.settleMs));
        log(
          `  ${contestant.name}: ${sizes.heldStreams} held streams, ${row.rssPerStreamKb!.toFixed(1)} KB RSS, ${row.heapPerStreamKb!.toFixed(1)} KB heap + external each`,
        );
      } catch (error) {
        log(`  ${contestant.name}: held streams failed: ${(error as Error).message}`);
      }
    }
    // Load rounds, interleaved: each round runs every contestant once in each upstream mode, the order of the
    // contestants rotated round by round, the order of the modes alternated.
    for (let round = 0; round < sizes.rounds; round++) {
      const order = live.map((_, i) => live[(i + round) % live.length]!);
      const modes = round % 2 === 0 ? UPSTREAM_MODES : [...UPSTREAM_MODES].reverse();
      for (const [m, mode] of modes.entries())
        for (const { contestant, proc, url, row } of order) {
          const model = dsModel(mode);
          await load(
            url,
            contestant,
            upstream.url,
            model,
            round === 0 && m === 0 ? sizes.warmupSeconds * 2 : sizes.warmupSeconds,
            sizes.connections,
          );
          const before = await proc.stats();
          let after = before;
          const result = await load(
            url,
            contestant,
            upstream.url,
            model,
            sizes.loadSeconds,
            sizes.connections,
            async () => {
              after = await proc.stats();
            },
          );
          const answers = result.bytes / row.bytesPerAnswer![mode]!;
          const cpu = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
          const entry: PeerLoad = {
            round: round + 1,
            mode,
            answersPerSec: answers / result.seconds,
            completed: result.completed,
            ...(answers > 0 ? { cpuMsPerAnswer: cpu / answers } : {}),
            errors: result.errors,
          };
          row.loads.push(entry);
          log(
            `  round ${round + 1}, upstream ${mode}, ${contestant.name}: ${entry.answersPerSec.toFixed(0)} answers/s, CPU ${entry.cpuMsPerAnswer?.toFixed(2) ?? '—'} ms/answer${entry.errors ? `, ${entry.errors} errors` : ''}`,
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
  const nofile = sizes.scaleSteps.at(-1)! * 2 + 4096;
  const fdLimit = effectiveNofile(nofile);
  const most = Math.floor((fdLimit - 512) / 2);
  const steps = sizes.scaleSteps.filter((n) => n < most);
  if (steps.length < sizes.scaleSteps.length) {
    steps.push(most);
    log(
      `  SCALE CAPPED: ${sizes.scaleSteps.at(-1)!.toLocaleString('en')} streams need ${(sizes.scaleSteps.at(-1)! * 2).toLocaleString('en')}+ open files in the gateway (a client and an upstream socket each); this machine allows ${fdLimit.toLocaleString('en')} (the hard limit, which only CAP_SYS_RESOURCE can raise): measuring up to ${most.toLocaleString('en')}`,
    );
  }
  const proc = await spawn('chatflux', upstream.url, [], { nofile, env: CHATFLUX_ENV(steps.at(-1)! + 512) });
  if (typeof proc === 'string') return { status: `chatflux did not start: ${proc}`, retried: 0, steps: [] };
  const requests: Array<{ destroy(): void }> = [];
  const result: ScaleResult = {
    status: 'ok',
    retried: 0,
    fdLimit,
    ...(steps.at(-1) === sizes.scaleSteps.at(-1) ? {} : { cappedAt: most }),
    steps: [],
  };
  try {
    const idle = await settledStats(proc);
    result.idleRssMb = idle.rssMb;
    result.idleHeapMb = idle.heapMb;
    const url = `${proc.url}${SSE.path}`;
    for (const streams of steps) {
      const start = performance.now();
      const opened = await openStreams(streams - requests.length, url, SSE, upstream.url, 'bench-hold');
      requests.push(...opened.requests);
      result.retried += opened.retried;
      const secondsToOpen = (performance.now() - start) / 1000;
      await sleep(sizes.settleMs);
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
 * Reads a whole answer without keeping it (counts its bytes, keeps its last 4 KB): the bench's own process must not
 * stall the small streams it times by joining and scanning tens of MB.
 */
function drain(
  url: string,
  contestant: PeerContestant,
  upstream: string,
  model: string,
): Promise<{ status: number; bytes: number; tail: string; errorFrame: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = post(url, contestant, upstream, model, false, (res) => {
      let bytes = 0;
      let tail = '';
      let errorFrame = false;
      res.setEncoding('utf8');
      res.on('data', (part: string) => {
        bytes += Buffer.byteLength(part);
        tail = (tail + part).slice(-4096);
        errorFrame ||= tail.includes('event: error');
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, bytes, tail, errorFrame, ms: performance.now() - start }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
  });
}

/**
 * Head-of-line blocking: small `bench-tick` streams (a delta every 10 ms) through one fresh process of `contestant`
 * (chatflux, judged; the raw pipe, for reference: what the machine and the bench's own process add); the largest gap
 * between two reads of any of them, first alone (the baseline), then while one huge answer (a 1 MB tool call; a
 * 100,000-delta text) goes through the same process.
 */
async function headOfLine(
  upstream: Proc,
  sizes: PeerSizes,
  log: (line: string) => void,
  contestant: PeerContestant,
): Promise<HolResult> {
  const result: HolResult = {
    key: contestant.key,
    name: contestant.name,
    status: 'ok',
    smallStreams: sizes.holSmallStreams,
    tickMs: 10,
    windows: [],
  };
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
  for (const big of bigs)
    bigBytes.set(big.model, (await drain(`${upstream.url}${direct.path}`, direct, upstream.url, big.model)).bytes);
  const proc = await spawn(contestant.role as Role, upstream.url, [], {
    nofile: 65536,
    ...(contestant.role === 'chatflux' ? { env: CHATFLUX_ENV(1024) } : {}),
  });
  if (typeof proc === 'string') return { ...result, status: `${contestant.name} did not start: ${proc}` };
  const url = `${proc.url}${contestant.path}`;
  const reader = startHolReader();
  try {
    // Warm the process up with the huge answers once (JIT), not measured.
    for (const big of bigs) await drain(url, contestant, upstream.url, big.model);
    await reader.open(url, contestant.key, upstream.url, 'bench-tick', sizes.holSmallStreams);
    await sleep(500);
    await reader.start();
    await proc.stats();
    await sleep(sizes.holBaselineMs);
    result.windows.push({
      label: 'none (baseline: the small streams alone)',
      bytes: 0,
      ...(await reader.stop()),
      loopDelayMaxMs: (await proc.stats()).loopDelayMaxMs,
    });
    for (const big of bigs) {
      await reader.start();
      await proc.stats();
      const { status, bytes, tail, errorFrame, ms } = await drain(url, contestant, upstream.url, big.model);
      await sleep(50);
      const w: HolWindow = {
        label: big.label,
        bytes: bigBytes.get(big.model)!,
        durationMs: ms,
        ...(await reader.stop()),
        loopDelayMaxMs: (await proc.stats()).loopDelayMaxMs,
      };
      if (status !== 200 || errorFrame || !tail.endsWith('data: [DONE]\n\n'))
        throw new Error(`${big.label}: HTTP ${status}, ${bytes} bytes, ending ${JSON.stringify(tail.slice(-200))}`);
      result.windows.push(w);
      log(
        `  head-of-line through ${contestant.name}, ${big.label} (${(w.bytes / 1048576).toFixed(1)} MB, ${ms.toFixed(0)} ms): largest gap of ${sizes.holSmallStreams} small streams ${w.largestGapMs.toFixed(1)} ms (p99 ${w.p99GapMs.toFixed(1)} ms; the process's own event loop held at most ${w.loopDelayMaxMs?.toFixed(1)} ms), ${(w.largestGapMs - result.windows[0]!.largestGapMs).toFixed(1)} ms over the baseline`,
      );
      await sleep(500);
    }
    log(
      `  head-of-line through ${contestant.name}, baseline: largest gap ${result.windows[0]!.largestGapMs.toFixed(1)} ms (event loop held at most ${result.windows[0]!.loopDelayMaxMs?.toFixed(1)} ms)`,
    );
  } catch (error) {
    result.status = (error as Error).message;
    log(`  head-of-line through ${contestant.name}: FAILED — ${result.status}`);
  } finally {
    await reader.close();
    await sleep(500);
    await proc.close();
  }
  return result;
}

/** What {@link runPeerBench} measures. */
export interface PeerBenchConfig {
  quick: boolean;
  log: (line: string) => void;
  /** Default: {@link peerSizes}(quick). No scale steps: no scale phase; no small streams: no head-of-line phase. */
  sizes?: PeerSizes;
  /** The contestants of the comparison (default all; `direct` is always one). */
  contestants?: Array<PeerContestant['key']>;
  /** The processes the head-of-line phase goes through (default: the raw pipe, then chatflux `/chat/sse`). */
  holThrough?: Array<'raw' | 'sse'>;
}

/** Runs the whole Performance III section once. */
export async function runPeerBench({
  quick,
  log,
  sizes = peerSizes(quick),
  contestants,
  holThrough = ['raw', 'sse'],
}: PeerBenchConfig): Promise<PeerRun> {
  const { loadavg } = await import('node:os');
  const started = Date.now();
  const loadBefore = loadavg();
  const upstream = await spawn('upstream', '', [], { nofile: (sizes.scaleSteps.at(-1) ?? 0) * 2 + 4096 });
  if (typeof upstream === 'string') throw new Error(`upstream did not start: ${upstream}`);
  const chosen = PEER_CONTESTANTS.filter(
    (c) => c.key === 'direct' || contestants === undefined || contestants.includes(c.key),
  );
  try {
    log('performance III: contestants interleaved');
    const rows = await compare(upstream, sizes, log, chosen);
    let scaled: ScaleResult = { status: 'not run', retried: 0, steps: [] };
    if (sizes.scaleSteps.length > 0) {
      log(`performance III: ${sizes.scaleSteps.join(' / ')} open streams in one chatflux process`);
      scaled = await scale(upstream, sizes, log);
    }
    const hol: HolResult[] = [];
    if (sizes.holSmallStreams > 0) {
      log('performance III: head-of-line');
      for (const key of holThrough)
        hol.push(
          await headOfLine(
            upstream,
            sizes,
            log,
            PEER_CONTESTANTS.find((c) => c.key === key)!,
          ),
        );
    }
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
