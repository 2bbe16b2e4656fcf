/**
 * Renders the "Performance III" section of bench/RESULTS.md from one or more runs of gatewayPeer.ts: the issue's
 * table (a range over the runs), the targets in each run, and the last run's details. The section sits between two
 * markers, so that `--only=perf3` replaces it alone and the other sections are kept.
 */
import { cpus, totalmem } from 'node:os';
import { median } from './lib/median.js';
import type { PeerContestant, PeerRow, PeerRun } from './gatewayPeer.js';
import type { UpstreamMode } from './gateway/servers.js';
import type { Target } from './report.js';

export const PERF3_START = '<!-- performance-iii: written by bench/run.ts (bench/peerReport.ts) -->';
export const PERF3_END = '<!-- /performance-iii -->';

const f = (n: number | undefined, digits = 1): string =>
  n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits);
const row = (cells: Array<string | number>): string => `| ${cells.join(' | ')} |`;
const outcome = (status: string): string =>
  status === 'ok' ? '' : status === 'not run' ? ' Not run this time.' : ` **Failed: ${status}**`;
const verdict = (t: Target): string => (t.met === undefined ? 'not measured' : t.met ? 'met' : '**missed**');

/** The figures of one contestant in one run, as the issue's table states them. */
export interface PeerFigures {
  /** Gateway CPU per answer ÷ the raw pipe's, median over the rounds (each round's ratio). */
  cpuX?: number;
  /** Time to first byte over direct's, ms (medians). */
  ttfbAddedMs?: number;
  /** Answers/s at concurrency 32 ÷ direct's, median over the rounds. */
  answersX?: number;
  rssPerStreamKb?: number;
}

/** What the upstream's modes are called in the section. */
export const MODE_LABEL: Record<UpstreamMode, string> = {
  streamed: 'upstream streamed (one write per event; judged)',
  atOnce: 'upstream written at once (reference)',
};

function roundRatio(
  row: PeerRow,
  base: PeerRow | undefined,
  mode: UpstreamMode,
  pick: (l: PeerRow['loads'][number]) => number | undefined,
) {
  if (base === undefined || row.status !== 'ok' || base.status !== 'ok') return undefined;
  const ratios: number[] = [];
  for (const load of row.loads.filter((l) => l.mode === mode)) {
    const mine = pick(load);
    const theirs = base.loads.find((l) => l.round === load.round && l.mode === mode);
    const other = theirs && pick(theirs);
    if (mine !== undefined && other) ratios.push(mine / other);
  }
  return ratios.length > 0 ? median(ratios) : undefined;
}

/** The figures of `key` in `run`, its load figures with the upstream in `mode`. */
export function peerFigures(run: PeerRun, key: PeerContestant['key'], mode: UpstreamMode = 'streamed'): PeerFigures {
  const row = run.rows.find((r) => r.key === key);
  const raw = run.rows.find((r) => r.key === 'raw');
  const direct = run.rows.find((r) => r.key === 'direct');
  if (row === undefined || row.status !== 'ok') return {};
  return {
    cpuX: roundRatio(row, raw, mode, (l) => l.cpuMsPerAnswer),
    ttfbAddedMs: row.ttfbMs !== undefined && direct?.ttfbMs !== undefined ? row.ttfbMs - direct.ttfbMs : undefined,
    answersX: roundRatio(row, direct, mode, (l) => l.answersPerSec),
    rssPerStreamKb: row.rssPerStreamKb,
  };
}

/** The issue's targets, judged on one run. */
export function peerTargets(run: PeerRun): Target[] {
  const targets: Target[] = [];
  const sse = peerFigures(run, 'sse');
  const v1 = peerFigures(run, 'v1');
  const judge = (
    text: string,
    value: number | undefined,
    ok: (v: number) => boolean,
    unit: string,
    digits = 2,
  ): Target => ({
    text,
    met: value === undefined ? undefined : ok(value),
    value: `${f(value, digits)}${unit}`,
  });
  targets.push(
    judge('gateway CPU per 2,000-delta answer, /chat/sse ≤ 2.5× the raw pipe', sse.cpuX, (v) => v <= 2.5, '×'),
    judge('gateway CPU per 2,000-delta answer, /v1/chat/completions ≤ 3× the raw pipe', v1.cpuX, (v) => v <= 3, '×'),
    judge('time to first byte added over direct ≤ 1 ms median, /chat/sse', sse.ttfbAddedMs, (v) => v <= 1, ' ms'),
    judge(
      'time to first byte added over direct ≤ 1 ms median, /v1/chat/completions',
      v1.ttfbAddedMs,
      (v) => v <= 1,
      ' ms',
    ),
    judge('answers/s at concurrency 32 ≥ 0.9× direct, /chat/sse', sse.answersX, (v) => v >= 0.9, '×'),
    judge('answers/s at concurrency 32 ≥ 0.8× direct, /v1/chat/completions', v1.answersX, (v) => v >= 0.8, '×'),
  );
  // The same targets with the upstream writing each answer at once: not what the issue measured, shown beside it.
  const sseAtOnce = peerFigures(run, 'sse', 'atOnce');
  const v1AtOnce = peerFigures(run, 'v1', 'atOnce');
  const ref = ` (${MODE_LABEL.atOnce})`;
  targets.push(
    judge(`gateway CPU per answer, /chat/sse ≤ 2.5× the raw pipe${ref}`, sseAtOnce.cpuX, (v) => v <= 2.5, '×'),
    judge(`gateway CPU per answer, /v1/chat/completions ≤ 3× the raw pipe${ref}`, v1AtOnce.cpuX, (v) => v <= 3, '×'),
    judge(`answers/s at concurrency 32 ≥ 0.9× direct, /chat/sse${ref}`, sseAtOnce.answersX, (v) => v >= 0.9, '×'),
    judge(
      `answers/s at concurrency 32 ≥ 0.8× direct, /v1/chat/completions${ref}`,
      v1AtOnce.answersX,
      (v) => v >= 0.8,
      '×',
    ),
  );
  const steps = run.scale.status === 'ok' ? run.scale.steps : [];
  const first = steps[0];
  const last = steps.at(-1);
  const n = (run.sizes.scaleSteps.at(-1) ?? 0).toLocaleString('en');
  targets.push(
    {
      ...judge(
        `${n} concurrent open streams in one process at ≤ 30 KB RSS each`,
        last?.rssPerStreamKb,
        (v) => v <= 30,
        ' KB',
        1,
      ),
      ...(run.scale.cappedAt === undefined || last === undefined
        ? {}
        : {
            context: `at ${last.streams.toLocaleString('en')} streams: capped by the open-file limit (${run.scale.fdLimit})`,
          }),
    },
    {
      text: `per-stream heap + external flat as streams grow (at ${n} ≤ 1.15× at ${(run.sizes.scaleSteps[0] ?? 0).toLocaleString('en')})`,
      met: first && last ? last.heapPerStreamKb <= first.heapPerStreamKb * 1.15 : undefined,
      value: first && last ? `${f(last.heapPerStreamKb)} KB vs ${f(first.heapPerStreamKb)} KB` : '—',
      ...(run.scale.cappedAt === undefined || last === undefined
        ? {}
        : { context: `(at ${last.streams.toLocaleString('en')}: capped by the open-file limit)` }),
    },
  );
  const hol = run.hol.find((h) => h.key === 'sse');
  for (const w of hol?.status === 'ok' ? hol.windows.slice(1) : []) {
    const over = w.largestGapMs - hol!.windows[0]!.largestGapMs;
    targets.push({
      ...judge(
        `head-of-line: ${w.label} beside ${hol!.smallStreams} small streams, largest gap ≤ 50 ms`,
        w.largestGapMs,
        (v) => v <= 50,
        ' ms',
        1,
      ),
      context: `(${over >= 0 ? '+' : ''}${f(over)} ms over the baseline; the gateway's own event loop held ≤ ${f(w.loopDelayMaxMs)} ms)`,
    });
  }
  if (hol?.status !== 'ok')
    targets.push({ text: 'head-of-line: largest gap ≤ 50 ms', met: undefined, value: hol?.status ?? 'not run' });
  return targets;
}

const range = (values: Array<number | undefined>, digits: number, unit = ''): string => {
  const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (known.length === 0) return '—';
  const lo = Math.min(...known);
  const hi = Math.max(...known);
  return (
    (lo.toFixed(digits) === hi.toFixed(digits) ? lo.toFixed(digits) : `${lo.toFixed(digits)}–${hi.toFixed(digits)}`) +
    unit
  );
};

/** The issue's table, the load figures with the upstream in `mode` (a range over the runs). */
function issueTable(out: string[], runs: PeerRun[], shown: PeerRow[], mode: UpstreamMode): void {
  const s = runs.at(-1)!.sizes;
  const figures = runs.map((run) => new Map(shown.map((r) => [r.key, peerFigures(run, r.key, mode)] as const)));
  out.push(row(['', ...shown.map((r) => r.name)]), row(['---', ...shown.map(() => '---:')]));
  const line = (
    label: string,
    pick: (x: ReturnType<typeof peerFigures>) => number | undefined,
    digits: number,
    unit = '',
    prefix = '',
  ) =>
    out.push(
      row([
        label,
        ...shown.map((r) => {
          const value = range(
            figures.map((m) => pick(m.get(r.key)!)),
            digits,
            unit,
          );
          return value === '—' ? value : prefix + value;
        }),
      ]),
    );
  line('gateway CPU per answer, × raw pipe', (x) => x.cpuX, 2);
  if (mode === 'streamed') line('time to first byte added over direct, median', (x) => x.ttfbAddedMs, 1, ' ms', '+');
  line(`answers/s at concurrency ${s.connections}, × direct`, (x) => x.answersX, 2);
  if (mode === 'streamed') line(`RSS per open stream (${s.heldStreams} held)`, (x) => x.rssPerStreamKb, 0, ' KB');
  out.push('');
}

/** The section, markers included. */
export function renderPeerSection(runs: PeerRun[]): string {
  const last = runs.at(-1)!;
  const quick = last.quick;
  const s = last.sizes;
  const cpu = cpus();
  const shown = last.rows.filter((r) => r.key !== 'direct');
  const out: string[] = [
    PERF3_START,
    '## Performance III: the gateway next to the raw pipe and a peer gateway (issue 35)',
    '',
    `Written by \`npm run bench:perf3\` (= \`tsx bench/run.ts --only=perf3 --runs=3\`; \`-- --quick\` for a smoke test of the harness) — do not edit by hand.` +
      (quick ? ' **Quick mode: small sizes; the figures are not the benchmark.**' : ''),
    '',
    `- Date: ${new Date().toISOString()}; ${runs.length} run(s), ${runs.map((r) => `${r.seconds.toFixed(0)} s`).join(', ')}`,
    `- Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`,
    `- Load average (1 min) before each run: ${runs.map((r) => r.loadBefore[0]!.toFixed(2)).join(', ')}; after the last: ${last.loadAfter[0]!.toFixed(2)} (the machine is shared: above ~0.5 the figures are noisy; the ratios are taken within a round, seconds apart).`,
    '',
    `Method. A loopback upstream answers every request with the same 2,000 DeepSeek-shaped deltas (562 KB: the fields of DeepSeek's ` +
      `recorded wire, \`system_fingerprint\`, \`logprobs:null\`, \`finish_reason:null\` on every chunk; bench/workloads.ts DEEPSEEK_SHAPE), ` +
      `written in one of two ways: **streamed** — one \`write\` per SSE event, so each event is its own HTTP chunk on the wire, as a ` +
      `provider flushes each event as it is produced (written as fast as the socket takes them): what the issue measured, and the ` +
      `judged mode; and ` +
      `**written at once** — the whole answer in one \`end\` (a proxy that pipes bytes then forwards a few 64 KB reads while a parsing ` +
      `proxy handles all 2,000 events: the least favourable case for a parsing gateway), shown beside it for reference. The contestants — direct (no proxy), ` +
      `the raw pipe proxy (\`node:http\` server, undici request piped into the response unchanged: the limit for any Node proxy), the floor ` +
      `proxy (the least work that turns the upstream SSE into \`/chat/sse\` frames), chatflux (\`startGateway\`, one process serving both ` +
      `\`/chat/sse\` and \`/v1/chat/completions\`) and the peer, the Portkey AI Gateway (\`@portkey-ai/gateway\` from npm, run by its own ` +
      `\`build/start-server.js\` \`--headless\`, installed by the bench into a cache folder outside the repository with every runtime dependency ` +
      `pinned to its lockfile at its release tag — bench/gateway/portkeyPins.json; with newer versions it does not stream correctly, its issue 1389; ` +
      `it is asked through its \`openai\` provider with \`x-portkey-custom-host\` pointed at the upstream) — each run in their own process ` +
      `(\`ulimit -n\` raised); load generator and probes in the bench's process — the same client code for every contestant ` +
      `(it counts body bytes and parses nothing); all on the same ${cpu.length} cores. ` +
      `Every contestant's answer is checked equal to the upstream's text first (a contestant that fails is skipped, and said so here). ` +
      `Then ${s.heldStreams} held streams per contestant (RSS and heap + external after a GC, before and while they are open, ÷ ${s.heldStreams}); ` +
      `then ${s.rounds} round(s) of load, each running every contestant once in each upstream mode (the modes' order alternated ` +
      `round by round; ${s.warmupSeconds} s warm-up, then ${s.loadSeconds} s of ` +
      `${s.connections} clients in a closed loop on keep-alive connections, each sending its next request when its last answer ended), the ` +
      `order rotated round by round; answers = body bytes received in the window ÷ the bytes of one answer's body (the answers in flight ` +
      `when the window closes count for their part; they are then read to their end, uncounted, before the next contestant); CPU per ` +
      `answer = the process's \`cpuUsage\` over the window ÷ those answers (direct: the upstream's own); "× raw pipe" and "× direct" are each ` +
      `round's ratio, the median over the rounds. ` +
      `Time to first byte: ${s.ttfbProbes} probes (after ${s.ttfbWarmup} unmeasured) on a keep-alive connection, probe i sent to every ` +
      `contestant in turn (upstream streamed); the median, minus direct's.`,
    '',
  ];
  for (const r of shown.filter((x) => x.status !== 'ok')) {
    out.push(`> **${r.name}: SKIPPED** — ${r.status}`, '');
  }
  for (const mode of ['streamed', 'atOnce'] as const) {
    out.push(
      mode === 'streamed'
        ? `### The table of the issue: ${MODE_LABEL.streamed} (${runs.length > 1 ? `range over the ${runs.length} runs` : 'one run'})`
        : `### The same with the ${MODE_LABEL.atOnce}: not what the issue measured`,
      '',
    );
    issueTable(out, runs, shown, mode);
  }

  const perRun = runs.map(peerTargets);
  out.push(
    '### Targets',
    '',
    row(['target', ...runs.map((_, i) => `run ${i + 1}`), 'met in every run']),
    row(['---', ...runs.map(() => '---'), '---']),
  );
  for (const t of perRun.at(-1)!) {
    const cells = perRun.map((targets) => targets.find((x) => x.text === t.text));
    out.push(
      row([
        t.text,
        ...cells.map((c) =>
          c === undefined ? '—' : `${c.value}${c.context === undefined ? '' : ` ${c.context}`} (${verdict(c)})`,
        ),
        cells.every((c) => c?.met === true) ? 'yes' : '**no**',
      ]),
    );
  }
  out.push('');

  out.push(
    `### Details of the last run`,
    '',
    row([
      'contestant',
      'upstream',
      'answers/s per round',
      'whole responses per round',
      'KB per answer',
      'CPU ms per answer per round',
      'errors',
      'TTFB median ms',
      'RSS KB per held stream',
      'heap + external KB per held stream',
    ]),
    row(['---', '---', '---', '---', '---:', '---', '---:', '---:', '---:', '---:']),
  );
  for (const r of last.rows) {
    if (r.status !== 'ok') {
      out.push(row([r.name, '', `skipped: ${r.status}`, '', '', '', '', '', '', '']));
      continue;
    }
    for (const mode of ['streamed', 'atOnce'] as const) {
      const loads = r.loads.filter((l) => l.mode === mode);
      const streamed = mode === 'streamed';
      out.push(
        row([
          r.name,
          streamed ? 'streamed' : 'at once',
          loads.map((l) => l.answersPerSec.toFixed(0)).join(', '),
          loads.map((l) => l.completed).join(', '),
          f((r.bytesPerAnswer?.[mode] ?? NaN) / 1024, 0),
          loads.map((l) => f(l.cpuMsPerAnswer, 2)).join(', ') + (r.key === 'direct' ? ' (the upstream itself)' : ''),
          loads.reduce((sum, l) => sum + l.errors, 0),
          streamed ? f(r.ttfbMs, 2) : '',
          streamed ? f(r.rssPerStreamKb) : '',
          streamed ? f(r.heapPerStreamKb) : '',
        ]),
      );
    }
  }
  out.push(
    '',
    `### Concurrent open streams in one chatflux process (\`/chat/sse\`)`,
    '',
    `One fresh chatflux process (upstream pool sized for every stream, \`ulimit -n\` raised), streams opened in batches of 250 up to each ` +
      `step and held (the upstream sends a delta now, then one every 5 s); RSS and heap + external after a GC, minus the idle process's ` +
      `(${f(last.scale.idleRssMb)} MB RSS, ${f(last.scale.idleHeapMb)} MB heap + external), ÷ streams. ` +
      `Streams reset before their first byte and opened again: ${runs.map((r) => r.scale.retried).join(', ')} (by run).` +
      outcome(last.scale.status),
    '',
    ...(last.scale.cappedAt === undefined
      ? []
      : [
          `> **Capped at ${last.scale.cappedAt.toLocaleString('en')} streams**: ${s.scaleSteps.at(-1)!.toLocaleString('en')} streams need ` +
            `${(s.scaleSteps.at(-1)! * 2).toLocaleString('en')}+ open files in the gateway process (a client and an upstream socket each); ` +
            `this machine's hard limit is ${last.scale.fdLimit!.toLocaleString('en')}, which only CAP_SYS_RESOURCE can raise (run the bench ` +
            `where \`ulimit -Hn\` is higher to measure the full count).`,
          '',
        ]),
    row([
      'open streams',
      'run',
      'RSS MB',
      'KB RSS / stream',
      'KB heap + external / stream',
      'KB RSS / stream added since the step before',
      'KB heap + external / stream added',
      'seconds to open',
    ]),
    row(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const k of s.scaleSteps.keys()) {
    for (const [i, run] of runs.entries()) {
      const step = run.scale.steps[k];
      const streams = step?.streams ?? s.scaleSteps[k]!;
      const before = k > 0 ? run.scale.steps[k - 1] : undefined;
      const added = step && before ? step.streams - before.streams : undefined;
      out.push(
        row([
          streams.toLocaleString('en'),
          i + 1,
          f(step?.rssMb, 0),
          f(step?.rssPerStreamKb),
          f(step?.heapPerStreamKb),
          step && before && added ? f(((step.rssMb - before.rssMb) * 1024) / added) : '',
          step && before && added ? f(((step.heapMb - before.heapMb) * 1024) / added) : '',
          f(step?.secondsToOpen, 0),
        ]),
      );
    }
  }
  const hols = last.hol;
  const small = hols[0]?.smallStreams ?? 0;
  const tick = hols[0]?.tickMs ?? 10;
  out.push(
    '',
    `### Head-of-line: one huge answer beside ${small} small streams in one process`,
    '',
    `${small} small streams receive a delta every ${tick} ms through one fresh process; the largest gap between two reads of any of ` +
      `them, read by a process of its own that does nothing else (bench/gateway/holReader.ts: the gap includes the ${tick} ms between ` +
      `deltas and any stall of the gateway or of the shared machine, not the bench's own work), first with nothing else (the ` +
      `baseline), then while one huge answer, written back to back by the upstream, goes through the same process (after one ` +
      `unmeasured pass of each huge answer; the bench's process drains it). Through chatflux \`/chat/sse\` (judged), and through the ` +
      `raw pipe proxy for reference (what the machine adds). Cells: largest gap ms (p99 of all gaps), one per run; "over the ` +
      `baseline": the largest gap minus the same run's baseline largest gap (the target is judged on the largest gap itself); "its ` +
      `own event loop held": the longest event-loop delay inside the proxy process over the window (\`monitorEventLoopDelay\`, ` +
      `1 ms resolution: the longest the process held its loop, or was not scheduled by the shared machine).` +
      (hols.length === 0 ? ' Not run this time.' : ''),
    '',
  );
  for (const h of hols.filter((x) => x.status !== 'ok'))
    out.push(`> **${h.name}: head-of-line failed** — ${h.status}`, '');
  out.push(
    row([
      'beside the small streams',
      'upstream MB',
      ...hols.flatMap((h) => [
        `${h.name}: answer ms`,
        `${h.name}: largest gap ms (p99)`,
        `${h.name}: largest gap over the baseline, ms`,
        `${h.name}: its own event loop held at most, ms`,
      ]),
    ]),
    row(['---', '---:', ...hols.flatMap(() => ['---:', '---', '---:', '---:'])]),
  );
  const windows = hols.find((h) => h.windows.length > 0)?.windows ?? [];
  for (const [k, w] of windows.entries()) {
    out.push(
      row([
        w.label,
        f(w.bytes / 1048576),
        ...hols.flatMap((h) => {
          const all = runs.map((run) => run.hol.find((x) => x.key === h.key)?.windows);
          const ws = all.map((x) => x?.[k]);
          return [
            ws.map((x) => (x?.durationMs === undefined ? '' : f(x.durationMs, 0))).join(' / '),
            ws.map((x) => (x === undefined ? '—' : `${f(x.largestGapMs)} (${f(x.p99GapMs)})`)).join(' / '),
            k === 0
              ? ''
              : all
                  .map((x) => {
                    const base = x?.[0]?.largestGapMs;
                    const gap = x?.[k]?.largestGapMs;
                    return base === undefined || gap === undefined ? '—' : `${gap >= base ? '+' : ''}${f(gap - base)}`;
                  })
                  .join(' / '),
            ws.map((x) => f(x?.loopDelayMaxMs)).join(' / '),
          ];
        }),
      ]),
    );
  }
  out.push('', PERF3_END);
  return out.join('\n');
}

/** `markdown` with its Performance III section replaced by `section` (appended when it has none). */
export function spliceSection(markdown: string, section: string): string {
  const start = markdown.indexOf(PERF3_START);
  const end = markdown.indexOf(PERF3_END);
  if (start === -1 || end === -1) return `${markdown.trimEnd()}\n\n${section}\n`;
  return `${markdown.slice(0, start)}${section}${markdown.slice(end + PERF3_END.length)}`;
}

/** The Performance III section of `markdown`, if it has one. */
export function sectionOf(markdown: string): string | undefined {
  const start = markdown.indexOf(PERF3_START);
  const end = markdown.indexOf(PERF3_END);
  return start === -1 || end === -1 ? undefined : markdown.slice(start, end + PERF3_END.length);
}
