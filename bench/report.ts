/** Renders bench/RESULTS.md: machine, method, tables, and the targets with met / missed. */
import { cpus, totalmem } from 'node:os';
import type { ChildReport } from './child.js';
import { CONTESTANT_NAMES } from './contestants.js';
import type { LoadRow, MemoryRow } from './gatewayLoad.js';
import { median } from './lib/median.js';
import type { WorkloadSpec } from './workloads.js';

export interface ParseResults {
  specs: WorkloadSpec[];
  reports: ChildReport[];
  warmup: number;
  reps: number;
  /** Runs of the contestants the ratio targets compare (floor, eventsource-parser, chatflux), when they differ. */
  ratioWarmup?: number;
  ratioReps?: number;
}

/** One full run's targets, with its conditions (for the table over several runs). */
export interface RunSummary {
  targets: Target[];
  loadBefore: number[];
  loadAfter: number[];
  seconds: number;
}

export interface ResultsInput {
  quick: boolean;
  /** The runs before this one, with `--runs=N` (their targets are tabled beside this run's). */
  earlierRuns?: RunSummary[];
  parse?: ParseResults;
  gateway?: { load: LoadRow[]; memory: MemoryRow[] };
  loadBefore: number[];
  loadAfter: number[];
  seconds: number;
}

const PEERS = [
  'eventsource-parser',
  'openai Stream',
  'openai ChatCompletionStream',
  'ai-sdk doStream',
  'ai-sdk streamText',
];
const CHATFLUX = ['chatflux accumulateDeltas', 'chatflux assembleToolCalls'];

const f = (n: number | undefined, digits = 1): string =>
  n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits);
const row = (cells: Array<string | number>): string => `| ${cells.join(' | ')} |`;

function find(parse: ParseResults, contestant: string, workload: string): ChildReport | undefined {
  return parse.reports.find((r) => r.contestant === contestant && r.workload === workload);
}
function ms(report: ChildReport | undefined): number | undefined {
  return report && report.times.length > 0 && report.status !== 'failed' && report.status !== 'not available'
    ? median(report.times)
    : undefined;
}

export interface Target {
  text: string;
  met: boolean | undefined;
  /** The measured figure (`1.51×`, `597.9 ms`); the multi-run table shows only this. */
  value: string;
  /** What it was measured against, shown beside the value in the run's own table. */
  context?: string;
}

/** Growth exponent between two (size, time) points: the log-log slope. */
export function exponent(s1: number, t1: number | undefined, s2: number, t2: number | undefined): number | undefined {
  return t1 === undefined || t2 === undefined ? undefined : Math.log(t2 / t1) / Math.log(s2 / s1);
}

function parseTables(parse: ParseResults, targets: Target[]): string[] {
  const out: string[] = [];
  const [a, b, c, dLow, dHigh] = parse.specs;
  for (const spec of parse.specs) {
    const floorMs = ms(find(parse, 'floor', spec.name));
    const any = parse.reports.find((r) => r.workload === spec.name && r.bytes > 0);
    out.push(
      `### (${spec.name}) ${describe(spec)}`,
      '',
      any
        ? `${(any.bytes / 1e6).toFixed(2)} MB, ${any.events.toLocaleString('en')} events, ${any.chunks.toLocaleString('en')} network chunks.`
        : '',
      '',
      row([
        'contestant',
        'median ms',
        'MB/s',
        'events/s',
        '× floor',
        'peak RSS MB',
        'RSS over baseline MB',
        'runs (ms)',
      ]),
      row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
    );
    for (const name of CONTESTANT_NAMES) {
      const r = find(parse, name, spec.name);
      if (!r) continue;
      const t = ms(r);
      if (t === undefined) {
        out.push(row([name, r.status, '', '', '', '', '', r.message ?? '']));
        continue;
      }
      out.push(
        row([
          name + (r.status === 'over budget' ? ' (over budget)' : ''),
          f(t),
          f(r.bytes / 1e6 / (t / 1000), 0),
          Math.round(r.events / (t / 1000)).toLocaleString('en'),
          floorMs ? f(t / floorMs, 2) : '—',
          f(r.peakRssMb, 0),
          f(r.peakRssMb - r.baselineRssMb, 0),
          r.times.map((x) => x.toFixed(0)).join(', '),
        ]),
      );
    }
    out.push('');
  }
  // (d) growth exponents.
  if (c && dLow && dHigh) {
    const kb = (s: WorkloadSpec) => s.size / 1024;
    out.push(
      `### (d) tool-call argument scaling: ${kb(dLow)} KB → ${kb(c)} KB → ${kb(dHigh)} KB`,
      '',
      'Growth exponent = log-log slope of the median time (1.0 = linear, 2.0 = quadratic).',
      '',
      row([
        'contestant',
        `${kb(dLow)} KB ms`,
        `${kb(c)} KB ms`,
        `${kb(dHigh)} KB ms`,
        `exponent ${kb(dLow)}→${kb(c)}`,
        `exponent ${kb(c)}→${kb(dHigh)}`,
      ]),
      row(['---', '---:', '---:', '---:', '---:', '---:']),
    );
    for (const name of CONTESTANT_NAMES) {
      const t = [dLow, c, dHigh].map((s) => ms(find(parse, name, s.name)));
      out.push(
        row([
          name,
          f(t[0]),
          f(t[1]),
          f(t[2]),
          f(exponent(dLow.size, t[0], c.size, t[1]), 2),
          f(exponent(c.size, t[1], dHigh.size, t[2]), 2),
        ]),
      );
      if (CHATFLUX.includes(name)) {
        const e = exponent(c.size, t[1], dHigh.size, t[2]);
        targets.push({
          text: `${name}: growth exponent ${kb(c)}→${kb(dHigh)} KB ≤ 1.1`,
          met: e === undefined ? undefined : e <= 1.1,
          value: f(e, 2),
        });
      }
    }
    out.push('');
  }
  // Targets (issue 17): pipeline ≤ 1.25× floor on (a), (b); on (c) accumulateDeltas ≤ 1.4×, assembleToolCalls ≤ 1.25×.
  for (const spec of [a, b, c].filter((s): s is WorkloadSpec => s !== undefined)) {
    const floorMs = ms(find(parse, 'floor', spec.name));
    const pipelines = spec.kind === 'tool' ? CHATFLUX : CHATFLUX.slice(0, 1);
    for (const name of pipelines) {
      const t = ms(find(parse, name, spec.name));
      const ratio = t !== undefined && floorMs ? t / floorMs : undefined;
      const limit = spec.kind === 'tool' && name === CHATFLUX[0] ? 1.4 : 1.25;
      targets.push({
        text: `${name} ≤ ${limit}× the floor on (${spec.name})`,
        met: ratio === undefined ? undefined : ratio <= limit,
        value: `${f(ratio, 2)}×`,
      });
    }
  }
  for (const spec of parse.specs) {
    const pipelines = spec.kind === 'tool' ? CHATFLUX : CHATFLUX.slice(0, 1);
    const peerTimes = PEERS.map((p) => [p, ms(find(parse, p, spec.name))] as const).filter(
      (x): x is readonly [string, number] => x[1] !== undefined,
    );
    const fastest = peerTimes.sort((x, y) => x[1] - y[1])[0];
    const sdkFastest = peerTimes.filter(([p]) => p !== 'eventsource-parser')[0];
    for (const name of pipelines) {
      const t = ms(find(parse, name, spec.name));
      targets.push({
        text: `${name} faster than every SDK peer (openai, ai-sdk) on (${spec.name})`,
        met: t === undefined || !sdkFastest ? undefined : t < sdkFastest[1],
        value: `${f(t)} ms`,
        context: sdkFastest ? `vs fastest SDK ${sdkFastest[0]} ${f(sdkFastest[1])} ms` : 'no SDK result',
      });
      targets.push({
        text: `${name} faster than every peer incl. eventsource-parser + JSON.parse on (${spec.name})`,
        met: t === undefined || !fastest ? undefined : t < fastest[1],
        value: `${f(t)} ms`,
        context: fastest ? `vs fastest peer ${fastest[0]} ${f(fastest[1])} ms` : 'no peer result',
      });
    }
  }
  return out;
}

function describe(spec: WorkloadSpec): string {
  if (spec.kind === 'text')
    return `${spec.size.toLocaleString('en')} text deltas (ASCII + CJK), one event per network chunk`;
  if (spec.kind === 'text-split') return `the same bytes split at random points (1–4,096 bytes)`;
  return `one tool call, ~${spec.size / 1024} KB JSON arguments in 1–8 character fragments, one event per chunk`;
}

function gatewayTables(gateway: { load: LoadRow[]; memory: MemoryRow[] }, quick: boolean, targets: Target[]): string[] {
  const out: string[] = [
    `### Load: 2,000-delta streams, autocannon, 50 connections, ${quick ? 1 : 5} s per target`,
    '',
    row([
      'target',
      'req/s',
      'latency p50 ms',
      'latency p99 ms',
      'errors',
      'responses',
      'proxy CPU ms / response',
      'TTFB ms (median)',
      'TTFB added ms',
      'TTFB over raw pipe ms',
      'load generator CPU %',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  const direct = gateway.load.find((r) => r.target.startsWith('direct'));
  const raw = gateway.load.find((r) => r.target.startsWith('raw pipe'));
  for (const r of gateway.load) {
    if (r.status !== 'ok') {
      out.push(row([r.target, r.status, '', '', '', '', '', '', '', '', '']));
      continue;
    }
    out.push(
      row([
        r.target,
        f(r.reqPerSec, 0),
        f(r.p50, 0),
        f(r.p99, 0),
        r.errors ?? '',
        r.responses ?? '',
        f(r.cpuMsPerResponse, 2) + (r.target.startsWith('direct') ? ' (upstream itself)' : ''),
        f(r.ttfbMs, 2),
        r.target.startsWith('direct') ? '' : f(r.ttfbMs! - (direct?.ttfbMs ?? NaN), 2),
        r.target.startsWith('chatflux') ? f(r.ttfbMs! - (raw?.ttfbMs ?? NaN), 2) : '',
        f(r.loadGeneratorCpuPct, 0),
      ]),
    );
  }
  const floor = gateway.load.find((r) => r.target.startsWith('floor'));
  for (const endpoint of ['/chat/sse', '/chat/stream']) {
    const gw = gateway.load.find((r) => r.target === `chatflux ${endpoint}`);
    const cpuRatio =
      floor?.cpuMsPerResponse && gw?.cpuMsPerResponse ? gw.cpuMsPerResponse / floor.cpuMsPerResponse : undefined;
    targets.push({
      text: `gateway CPU per 2,000-delta ${endpoint} response ≤ 1.1× the floor proxy`,
      met: cpuRatio === undefined ? undefined : cpuRatio <= 1.1,
      value: `${f(cpuRatio, 2)}×`,
    });
    const added = gw?.ttfbMs !== undefined && raw?.ttfbMs !== undefined ? gw.ttfbMs - raw.ttfbMs : undefined;
    targets.push({
      text: `time to first byte added by the gateway (${endpoint}) ≤ 1.5 ms over the raw pipe proxy's`,
      met: added === undefined ? undefined : added <= 1.5,
      value: `${f(added, 2)} ms`,
      context: `(${f(gw?.ttfbMs, 2)} vs ${f(raw?.ttfbMs, 2)} ms)`,
    });
  }
  const one = gateway.load.find((r) => r.target === 'chatflux /chat/sse');
  const two = gateway.load.find((r) => r.target === 'chatflux /chat/sse, 2 workers');
  const speedup = one?.reqPerSec && two?.reqPerSec ? two.reqPerSec / one.reqPerSec : undefined;
  targets.push({
    text: 'two workers: ≥ 1.5× the requests per second of one (/chat/sse)',
    met: speedup === undefined ? undefined : speedup >= 1.5,
    value: `${f(speedup, 2)}×`,
    context: `(${f(two?.reqPerSec, 0)} vs ${f(one?.reqPerSec, 0)} req/s)`,
  });
  out.push(
    '',
    `### Memory: concurrent slow streams, and one slow reader`,
    '',
    `Slow streams: N concurrent \`bench-slow\` streams (the upstream sends one delta a second), RSS of the proxy process after a GC, before and while all N are open. ` +
      `Slow reader: one client reads a ~20 MB answer at 10 KB/s; the proxy's RSS is sampled every 500 ms for ${quick ? 3 : 20} s ` +
      `(bounded: reading all 20 MB at 10 KB/s would take ~2,000 s); "upstream sent" shows whether backpressure reached the upstream.`,
    '',
    row([
      'target',
      'streams',
      'idle RSS MB',
      'RSS with N streams MB',
      'KB per stream',
      'heap + external KB per stream',
      'slow reader: base RSS MB',
      'peak RSS MB',
      'growth MB',
      'client read KB',
      'upstream sent MB',
      '… of it in the 2nd half MB',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const m of gateway.memory) {
    out.push(
      row([
        m.target + (m.status === 'ok' ? '' : ` (${m.status})`),
        m.streams ?? '',
        f(m.idleRssMb),
        f(m.loadedRssMb),
        f(m.perStreamKb),
        f(m.perStreamHeapKb),
        f(m.slowBaseRssMb),
        f(m.slowPeakRssMb),
        f(m.slowGrowthMb),
        f(m.slowReadKb, 0),
        f(m.slowUpstreamMb, 2),
        f(m.slowUpstreamLateMb, 2),
      ]),
    );
  }
  const gw = gateway.memory.find((m) => m.target === 'chatflux /chat/sse');
  targets.push(
    {
      text: 'slow-client RSS growth ≤ 20 MB (20 MB answer)',
      met: gw?.slowGrowthMb === undefined ? undefined : gw.slowGrowthMb <= 20,
      value: `${f(gw?.slowGrowthMb)} MB`,
      context: `over ${gw?.slowSeconds ?? '?'} s`,
    },
    {
      text: '≤ 30 KB RSS per idle concurrent stream',
      met: gw?.perStreamKb === undefined ? undefined : Math.max(gw.perStreamKb, gw.perStreamHeapKb ?? 0) <= 30,
      value: `${f(gw?.perStreamKb)} KB RSS, ${f(gw?.perStreamHeapKb)} KB heap + external`,
      context: `× ${gw?.streams ?? '?'} streams (the larger is judged)`,
    },
  );
  return out;
}

const verdict = (t: Target): string => (t.met === undefined ? 'not measured' : t.met ? 'met' : '**missed**');

/** Renders RESULTS.md; also returns this run's targets (for `--runs=N`). */
export function renderResults(input: ResultsInput): { markdown: string; targets: Target[] } {
  const cpu = cpus();
  const targets: Target[] = [];
  const lines: string[] = [
    '# chatflux benchmark results',
    '',
    `Written by \`npm run bench${input.quick ? ' -- --quick' : ''}\` (bench/run.ts) — do not edit by hand.${input.quick ? ' **Quick mode: small sizes, a smoke test; the figures are not the benchmark.**' : ''}`,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${process.platform} ${process.arch}`,
    `- Node ${process.version}`,
    `- Load average (1/5/15 min) before: ${input.loadBefore.map((x) => x.toFixed(2)).join(' / ')}; after: ${input.loadAfter.map((x) => x.toFixed(2)).join(' / ')} — above ~0.5 the figures are noisy.`,
    `- Run time: ${input.seconds.toFixed(0)} s`,
    '',
  ];
  if (input.parse) {
    lines.push(
      '## Parsing: the same bytes through every contestant',
      '',
      `Each contestant runs in its own process: ${input.parse.warmup} warm-up run(s), then ${input.parse.reps} measured runs; the median is shown` +
        (input.parse.ratioReps === undefined
          ? '. '
          : ` (the floor, eventsource-parser and chatflux, whose ratios the targets judge: ${input.parse.ratioWarmup ?? input.parse.warmup} warm-up and ${input.parse.ratioReps} measured runs, for steadier medians; on each workload they run back to back, before the SDKs, so a change in the machine's load seldom falls between them). `) +
        "Every run's final text / tool arguments are checked equal to the expected ones (the bench fails otherwise). " +
        'A full GC runs once after the workload is built (the RSS baseline), not between runs: forced between runs, it frees the hidden classes of the last run\'s parsed JSON, and every run starts deoptimized again (100 deoptimizations in 9 chatflux runs instead of 19; 16 instead of 7 for the floor) — a cold start no service parsing streams all day sees. ' +
        'Chunks come from memory (pre-built Uint8Arrays): the floor, eventsource-parser and chatflux (a synchronous `from(chunks)`) are fed in a loop; ' +
        'the SDKs through a custom `fetch` whose `Response` body is a pull-based ReadableStream of the chunks. ' +
        '"RSS over baseline" is the peak RSS minus the RSS after the workload was built. ' +
        (input.quick
          ? '(Quick mode runs all workloads of a contestant in one process: its peak RSS is shared.) '
          : '') +
        '"chatflux accumulateDeltas" = `parseSse → decodeChunk → accumulateDeltas` (the last snapshot); ' +
        '"chatflux assembleToolCalls" = `parseSse → decodeChunk → assembleToolCalls`. ' +
        "streamText's tool arguments are compared after `JSON.parse` (it only exposes the parsed input). " +
        'A run slower than the budget ends that contestant\'s measurement ("over budget": fewer runs).',
      '',
      ...parseTables(input.parse, targets),
    );
  }
  if (input.gateway) {
    lines.push(
      '## Gateway',
      '',
      'Loopback only. The upstream (a tiny SSE server writing a pre-built 2,000-delta answer back to back), each proxy, and the ' +
        'client side (autocannon, probes) run in separate processes — on 2 cores they share the CPU, so req/s is a relative figure. ' +
        'Proxy CPU = `process.cpuUsage()` of the proxy process over the load run ÷ responses the upstream completed. ' +
        "The floor proxy = undici request, TextDecoder, split on blank lines, JSON.parse, write the spec's SSE frames, pause on backpressure. " +
        'The chatflux gateway is `startGateway` (Express + chatRouter) with request logging off. ' +
        'Each answer is checked through each target before its load run. Every target gets the same warm-up: a 2 s (1 s with ' +
        '--quick) load run before its measured one; its TTFB is probed after the load run (20 (5) requests, then the 40 (10) measured). ' +
        '"Load generator CPU %" is the CPU of the client process (autocannon) over the measured run, in % of one core.',
      '',
      ...gatewayTables(input.gateway, input.quick, targets),
      '',
    );
  }
  lines.push('## Targets', '', row(['target', 'result', 'measured']), row(['---', '---', '---']));
  for (const t of targets) lines.push(row([t.text, verdict(t), t.context === undefined ? t.value : `${t.value} ${t.context}`]));
  lines.push('');
  const earlier = input.earlierRuns ?? [];
  if (earlier.length > 0) {
    const runs = [...earlier, { targets, loadBefore: input.loadBefore, loadAfter: input.loadAfter, seconds: input.seconds }];
    lines.push(
      `## Targets in each of the ${runs.length} runs`,
      '',
      `\`npm run bench -- --runs=${runs.length}\`: ${runs.length} full runs back to back in one invocation; the tables above are the last run's. ` +
        'Load average (1 min) before each run: ' +
        runs.map((r, i) => `run ${i + 1}: ${r.loadBefore[0]?.toFixed(2) ?? '?'} (${r.seconds.toFixed(0)} s)`).join(', ') +
        '.',
      '',
      row(['target', ...runs.map((_, i) => `run ${i + 1}`), 'met in every run']),
      row(['---', ...runs.map(() => '---'), '---']),
    );
    for (const t of targets) {
      const cells = runs.map((r) => r.targets.find((x) => x.text === t.text));
      const all = cells.every((c) => c?.met === true);
      lines.push(
        row([t.text, ...cells.map((c) => (c === undefined ? '—' : `${c.value} (${verdict(c)})`)), all ? 'yes' : '**no**']),
      );
    }
    lines.push('');
  }
  return { markdown: lines.join('\n'), targets };
}
