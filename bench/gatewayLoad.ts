/**
 * Gateway load: the upstream and each proxy in their own process; autocannon, the probes and the slow clients run in
 * this (parent) process. Every phase is bounded in time and requests and stops by itself.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { answer2000, type Role, type Stats } from './gateway/servers.js';
import { firstByteMs } from './lib/firstByteMs.js';
import { median } from './lib/median.js';

const SERVERS = join(__dirname, 'gateway', 'servers.ts');

export interface Target {
  name: string;
  role: Role | 'direct';
  path: string;
  /** How to read the answer's text out of the response body. */
  wire: 'upstream-sse' | 'spec-sse' | 'ndjson';
}

export const TARGETS: Target[] = [
  { name: 'direct (no proxy)', role: 'direct', path: '/v1/chat/completions', wire: 'upstream-sse' },
  { name: 'raw pipe proxy', role: 'raw', path: '/v1/chat/completions', wire: 'upstream-sse' },
  { name: 'floor proxy (SSE)', role: 'floor', path: '/chat/sse', wire: 'spec-sse' },
  { name: 'chatflux /chat/sse', role: 'chatflux', path: '/chat/sse', wire: 'spec-sse' },
  { name: 'chatflux /chat/stream', role: 'chatflux', path: '/chat/stream', wire: 'ndjson' },
  // CHATFLUX_WORKERS=2 as the gateway program runs it (node:cluster, one port); its CPU sums the primary's and the workers'.
  { name: 'chatflux /chat/sse, 2 workers', role: 'chatflux2', path: '/chat/sse', wire: 'spec-sse' },
];

export interface GatewayConfigRun {
  quick: boolean;
  log: (line: string) => void;
}

export interface LoadRow {
  target: string;
  status: string;
  reqPerSec?: number;
  p50?: number;
  p99?: number;
  errors?: number;
  responses?: number;
  cpuMsPerResponse?: number;
  ttfbMs?: number;
  /** CPU of this process (autocannon, the load generator) over the measured run, in % of one core. */
  loadGeneratorCpuPct?: number;
}

export interface MemoryRow {
  target: string;
  status: string;
  streams?: number;
  idleRssMb?: number;
  loadedRssMb?: number;
  perStreamKb?: number;
  /** The same from the V8 heap + external memory (after a GC): less noisy than RSS. */
  perStreamHeapKb?: number;
  slowBaseRssMb?: number;
  slowPeakRssMb?: number;
  slowGrowthMb?: number;
  slowReadKb?: number;
  slowUpstreamMb?: number;
  /** Bytes the upstream sent in the second half of the slow read (≈ 0 when backpressure reached it). */
  slowUpstreamLateMb?: number;
  slowSeconds?: number;
}

export interface Proc {
  url: string;
  child: ChildProcess;
  stats(gc?: boolean): Promise<Stats>;
  close(): Promise<void>;
}

/** How {@link spawn} starts a server process, beyond its role. */
export interface SpawnConfig {
  /** More arguments after the role and the upstream URL (the `portkey` role: its server script). */
  args?: string[];
  /** More environment variables. */
  env?: Record<string, string>;
  /**
   * The open-file limit (`ulimit -n`) to raise the process to: started through `/bin/sh -c 'ulimit -n N; exec node …'`
   * (raising the hard limit needs root; else it is raised to the hard limit).
   */
  nofile?: number;
  /** Drop the process's stderr (Portkey logs every client that disconnects mid-answer there, as a load run's end does). */
  quiet?: boolean;
}

const RAISE_NOFILE = (n: number): string => `ulimit -n ${n} 2>/dev/null || ulimit -n "$(ulimit -Hn)"`;

/**
 * The open-file limit a process started with `nofile: wanted` gets: `wanted`, or the hard limit when raising it is not
 * permitted (raising the hard limit needs CAP_SYS_RESOURCE, which a container seldom grants).
 */
export function effectiveNofile(wanted: number): number {
  return Number(execFileSync('/bin/sh', ['-c', `${RAISE_NOFILE(wanted)}; ulimit -n`], { encoding: 'utf8' }).trim());
}

/** Starts one server role in its own process (`execArgv`: extra Node flags, e.g. `--cpu-prof`). */
export async function spawn(
  role: Role,
  upstream = '',
  execArgv: string[] = [],
  config: SpawnConfig = {},
): Promise<Proc | string> {
  const node = ['--import', 'tsx', '--expose-gc', ...execArgv];
  const child = fork(SERVERS, [role, upstream, ...(config.args ?? [])], {
    ...(config.nofile === undefined
      ? { execArgv: node }
      : {
          // fork runs `execPath ...execArgv SERVERS ...args`: here `/bin/sh -c SCRIPT node …` ($0 = node).
          execPath: '/bin/sh',
          execArgv: ['-c', `${RAISE_NOFILE(config.nofile)}; exec "$0" "$@"`, process.execPath, ...node],
        }),
    env: { ...process.env, ...config.env },
    stdio: ['ignore', 'ignore', config.quiet === true ? 'ignore' : 'inherit', 'ipc'],
  });
  const first = await new Promise<{ type: string; url?: string; message?: string }>((resolve) => {
    child.once('message', resolve);
    child.once('exit', (code) => resolve({ type: 'unavailable', message: `exited with ${code}` }));
  });
  if (first.type !== 'ready') {
    child.kill();
    return first.message ?? 'not available';
  }
  const stats = (gc = false) =>
    new Promise<Stats>((resolve) => {
      child.once('message', (m) => resolve(m as Stats));
      child.send({ type: 'stats', gc });
    });
  const close = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.send({ type: 'close' });
    });
  return { url: first.url!, child, stats, close };
}

const BODY = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] });

/** Reads the answer text of a whole response body in the given wire format. */
export function textOf(body: string, wire: Target['wire']): string {
  let text = '';
  if (wire === 'ndjson') {
    for (const line of body.split('\n')) {
      if (line === '') continue;
      const value = JSON.parse(line) as { message?: { content?: string }; error?: unknown };
      if (value.error) throw new Error(`error line: ${line}`);
      text += value.message?.content ?? '';
    }
    return text;
  }
  for (const frame of body.split('\n\n')) {
    // A frame's `id:` line (resumable answers) and `event:` line come before its `data:` line.
    const lines = frame.split('\n');
    if (lines.includes('event: error')) throw new Error(`error frame: ${frame}`);
    const data = lines.find((line) => line.startsWith('data: '));
    if (data === undefined || data === 'data: [DONE]') continue;
    const value = JSON.parse(data.slice(6)) as {
      message?: { content?: string };
      choices?: Array<{ delta?: { content?: string | null } }>;
    };
    text += wire === 'spec-sse' ? (value.message?.content ?? '') : (value.choices?.[0]?.delta?.content ?? '');
  }
  return text;
}

function post(url: string, model: string, agent: Agent | false, onResponse: (res: IncomingMessage) => void) {
  const body = BODY(model);
  const req = httpRequest(url, {
    method: 'POST',
    agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  req.on('response', onResponse);
  req.end(body);
  return req;
}

function fetchText(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = post(url, 'bench-2000', false, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (p: Buffer) => parts.push(p));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
  });
}

/**
 * Median time from sending the request to the first body byte, over `n` sequential requests after `warmup` ones
 * (not counted). Probed after each target's load run, so every target is equally warm: probed first, on a fresh
 * process, `/chat/sse` and the two-worker gateway measured their JIT warm-up and `/chat/stream` (probed after
 * `/chat/sse`'s load run) did not — most of the old gap between the two.
 */
async function timeToFirstByte(url: string, n: number, warmup: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  for (let i = 0; i < warmup + n; i++) {
    times.push(await firstByteMs((onResponse) => post(url, 'bench-2000', agent, onResponse)));
  }
  agent.destroy();
  return median(times.slice(warmup));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens `n` concurrent slow streams, waits until each has its first byte, samples the proxy's RSS, and ends them. */
async function slowStreams(
  proxy: Proc,
  url: string,
  n: number,
): Promise<Pick<MemoryRow, 'idleRssMb' | 'loadedRssMb' | 'perStreamKb' | 'perStreamHeapKb' | 'streams'>> {
  const idle = await proxy.stats(true);
  const requests: Array<ReturnType<typeof post>> = [];
  let started = 0;
  const allStarted = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${started}/${n} streams started within 60 s`)), 60_000);
    for (let i = 0; i < n; i++) {
      const req = post(url, 'bench-slow', false, (res) => {
        res.once('data', () => {
          if (++started === n) {
            clearTimeout(timer);
            resolve();
          }
        });
        res.on('data', () => undefined);
        res.on('error', () => undefined);
      });
      req.on('error', () => undefined);
      requests.push(req);
    }
  });
  try {
    await allStarted;
    await sleep(1500);
    const loaded = await proxy.stats(true);
    return {
      streams: n,
      idleRssMb: idle.rssMb,
      loadedRssMb: loaded.rssMb,
      perStreamKb: ((loaded.rssMb - idle.rssMb) * 1024) / n,
      perStreamHeapKb: ((loaded.heapMb - idle.heapMb) * 1024) / n,
    };
  } finally {
    for (const req of requests) req.destroy();
    await sleep(1000);
  }
}

/** One client reads the 20 MB answer at `rate` bytes/s for `seconds`; the proxy's RSS is sampled every 500 ms. */
async function slowReader(
  proxy: Proc,
  upstream: Proc,
  url: string,
  seconds: number,
  rate = 10 * 1024,
): Promise<
  Pick<
    MemoryRow,
    | 'slowBaseRssMb'
    | 'slowPeakRssMb'
    | 'slowGrowthMb'
    | 'slowReadKb'
    | 'slowUpstreamMb'
    | 'slowUpstreamLateMb'
    | 'slowSeconds'
  >
> {
  const base = (await proxy.stats(true)).rssMb;
  const upstreamBefore = (await upstream.stats()).bigBytes;
  let read = 0;
  let peak = base;
  const start = performance.now();
  const req = post(url, 'bench-20mb', false, (res) => {
    res.on('data', (part: Buffer) => {
      read += part.length;
      const ahead = read / rate - (performance.now() - start) / 1000;
      if (ahead > 0) {
        res.pause();
        setTimeout(() => res.resume(), ahead * 1000);
      }
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  const deadline = start + seconds * 1000;
  let upstreamHalf: number | undefined;
  while (performance.now() < deadline) {
    await sleep(500);
    peak = Math.max(peak, (await proxy.stats()).rssMb);
    if (upstreamHalf === undefined && performance.now() >= start + (seconds * 1000) / 2)
      upstreamHalf = (await upstream.stats()).bigBytes;
  }
  const upstreamAfter = (await upstream.stats()).bigBytes;
  req.destroy();
  await sleep(500);
  return {
    slowBaseRssMb: base,
    slowPeakRssMb: peak,
    slowGrowthMb: peak - base,
    slowReadKb: read / 1024,
    slowUpstreamMb: (upstreamAfter - upstreamBefore) / 1048576,
    slowUpstreamLateMb: (upstreamAfter - (upstreamHalf ?? upstreamBefore)) / 1048576,
    slowSeconds: seconds,
  };
}

export async function load(url: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    method: 'POST',
    connections: 50,
    duration: seconds,
    timeout: 20,
    headers: { 'content-type': 'application/json' },
    body: BODY('bench-2000'),
  });
}

/** Runs the whole gateway section. */
export async function runGatewayBench({
  quick,
  log,
}: GatewayConfigRun): Promise<{ load: LoadRow[]; memory: MemoryRow[] }> {
  const seconds = quick ? 2 : 5;
  const warmupSeconds = quick ? 1 : 2;
  const streams = quick ? 100 : 1000;
  const slowSeconds = quick ? 3 : 20;
  const ttfbN = quick ? 10 : 40;
  const expected = answer2000().text;
  const upstream = await spawn('upstream');
  if (typeof upstream === 'string') throw new Error(`upstream did not start: ${upstream}`);
  const loadRows: LoadRow[] = [];
  const memoryRows: MemoryRow[] = [];
  try {
    const procs = new Map<Role | 'direct', Proc | string>();
    for (const target of TARGETS) {
      let proxy = procs.get(target.role);
      if (proxy === undefined) {
        proxy = target.role === 'direct' ? upstream : await spawn(target.role, upstream.url);
        procs.set(target.role, proxy);
      }
      if (typeof proxy === 'string') {
        log(`  ${target.name}: not available (${proxy})`);
        loadRows.push({ target: target.name, status: `not available: ${proxy}` });
        memoryRows.push({ target: target.name, status: `not available: ${proxy}` });
        continue;
      }
      const url = `${proxy.url}${target.path}`;
      // Correctness first: the answer through this target must be the upstream's text, exactly.
      const { status, body } = await fetchText(url);
      const got = status === 200 ? textOf(body, target.wire) : `HTTP ${status}: ${body.slice(0, 200)}`;
      if (got !== expected)
        throw new Error(
          `${target.name}: wrong answer (${got.length} chars, want ${expected.length}): ${got.slice(0, 120)}`,
        );
      log(`  ${target.name}: answer ok`);
      // Memory before load, so that the baselines are not the heap a load run left behind.
      if (target.role !== 'direct' && target.role !== 'chatflux2' && target.path !== '/chat/stream') {
        const memory: MemoryRow = { target: target.name, status: 'ok' };
        try {
          Object.assign(memory, await slowStreams(proxy, url, streams));
          log(
            `    ${streams} slow streams: ${memory.perStreamKb!.toFixed(1)} KB RSS, ${memory.perStreamHeapKb!.toFixed(1)} KB heap each`,
          );
        } catch (error) {
          memory.status = `slow streams: ${(error as Error).message}`;
        }
        Object.assign(memory, await slowReader(proxy, upstream, url, slowSeconds));
        log(
          `    slow reader: RSS +${memory.slowGrowthMb!.toFixed(1)} MB over ${slowSeconds} s; upstream sent ${memory.slowUpstreamMb!.toFixed(2)} MB (${memory.slowUpstreamLateMb!.toFixed(2)} MB in the second half)`,
        );
        memoryRows.push(memory);
      }
      // The same warm-up load for every target before its measured run: the one-worker gateway used to be measured
      // warm (after its TTFB probes, slow streams and slow reader) and the two-worker one cold (after 40 requests).
      log(`    warm-up load ${warmupSeconds} s, then load ${seconds} s at 50 connections…`);
      await load(url, warmupSeconds);
      const before = await proxy.stats();
      const upBefore = await upstream.stats();
      const clientBefore = process.cpuUsage();
      const clientStart = performance.now();
      const result = await load(url, seconds);
      const clientCpu = process.cpuUsage(clientBefore);
      const clientElapsed = performance.now() - clientStart;
      const after = await proxy.stats();
      const upAfter = await upstream.stats();
      // TTFB after the load run: every target probed equally warm (see timeToFirstByte).
      const ttfbMs = await timeToFirstByte(url, ttfbN, ttfbN / 2);
      const responses = upAfter.completed - upBefore.completed;
      const cpu = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
      loadRows.push({
        target: target.name,
        status: 'ok',
        reqPerSec: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors + result.timeouts + result.non2xx,
        responses,
        cpuMsPerResponse: responses > 0 ? cpu / responses : undefined,
        ttfbMs,
        loadGeneratorCpuPct: ((clientCpu.user + clientCpu.system) / 1000 / clientElapsed) * 100,
      });
      log(
        `    ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, CPU ${(cpu / Math.max(responses, 1)).toFixed(2)} ms/response, TTFB ${ttfbMs.toFixed(2)} ms, load generator ${loadRows.at(-1)!.loadGeneratorCpuPct!.toFixed(0)}% of a core`,
      );
    }
    for (const proc of procs.values()) if (typeof proc !== 'string' && proc !== upstream) await proc.close();
  } finally {
    await upstream.close();
  }
  return { load: loadRows, memory: memoryRows };
}
