/**
 * `npm run bench` — chatflux against the floor and its peers, on the same bytes, then the gateway under load.
 * Writes bench/RESULTS.md. `--quick`: everything at small sizes (a CI smoke test, under a minute).
 * `--only=parse` / `--only=gateway` / `--only=perf3`: one section (`perf3`: Performance III, the gateway next to the
 * raw pipe and the Portkey gateway, 10,000 open streams, head-of-line; `npm run bench:perf3`). `--runs=N`: N full runs
 * back to back; RESULTS.md (rewritten after each) shows the last run's tables and every run's targets side by side.
 * A section not measured by this invocation keeps its text from the previous RESULTS.md (Performance III: between
 * its markers; `--only=perf3` rewrites that section alone).
 */
import { fork } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildReport, ChildTask } from './child.js';
import { CONTESTANT_NAMES, TOOL_ONLY } from './contestants.js';
import { buildChatflux } from './lib/buildChatflux.js';
import { runGatewayBench, type LoadRow, type MemoryRow } from './gatewayLoad.js';
import { runPeerBench, type PeerRun } from './gatewayPeer.js';
import { renderPeerSection, sectionOf, spliceSection } from './peerReport.js';
import { renderResults, type ParseResults, type RunSummary } from './report.js';
import { workloadSpecs } from './workloads.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
if (only !== undefined && !['parse', 'gateway', 'perf3'].includes(only))
  throw new Error(`--only must be parse, gateway or perf3, got ${only}`);
const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice('--runs='.length) ?? '1');
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${String(runs)}`);
const log = (line: string) => process.stdout.write(`${line}\n`);

function runChild(task: ChildTask): Promise<ChildReport[]> {
  return new Promise((resolve) => {
    const child = fork(join(__dirname, 'child.ts'), [JSON.stringify(task)], {
      execArgv: ['--import', 'tsx', '--expose-gc', '--max-old-space-size=4096'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let reports: ChildReport[] | undefined;
    const hardMs = task.specs.length * (task.warmup + task.reps + 1) * task.budgetMs + 60_000;
    const timer = setTimeout(() => child.kill('SIGKILL'), hardMs);
    child.on('message', (m) => (reports = m as ChildReport[]));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(
        reports ??
          task.specs.map((spec) => ({
            contestant: task.contestant,
            workload: spec.name,
            status: 'failed' as const,
            message: signal === 'SIGKILL' ? `killed after ${hardMs / 1000} s` : `exited with ${code ?? signal}`,
            times: [],
            bytes: 0,
            events: 0,
            chunks: 0,
            baselineRssMb: 0,
            peakRssMb: 0,
          })),
      );
    });
  });
}

function logReport(report: ChildReport): void {
  const times = report.times.map((t) => t.toFixed(1)).join(' ');
  log(
    `  ${report.workload.padEnd(8)} ${report.contestant.padEnd(28)} ${report.status}${report.message ? ` (${report.message})` : ''} [${times}] ms, peak RSS ${report.peakRssMb.toFixed(0)} MB`,
  );
}

async function parseSection(): Promise<ParseResults> {
  const specs = workloadSpecs(quick);
  const reports: ChildReport[] = [];
  const warmup = 1;
  const reps = quick ? 1 : 5;
  // The contestants the ratio targets compare (the floor, eventsource-parser, chatflux) take a few hundred ms a run
  // and vary by ±10% run to run: more runs steady their medians for a few seconds more.
  const steady = (contestant: string): boolean => !quick && !/^(openai|ai-sdk)/.test(contestant);
  const ratioWarmup = 2;
  const ratioReps = 9;
  const budgetMs = quick ? 5_000 : 15_000;
  const tasks: ChildTask[] = [];
  if (quick) {
    // One process per contestant, all workloads in it: process start-up (tsx) would otherwise dominate a smoke test.
    for (const contestant of CONTESTANT_NAMES) {
      tasks.push({
        contestant,
        specs: specs.filter((s) => s.kind === 'tool' || !TOOL_ONLY.has(contestant)),
        warmup,
        reps,
        budgetMs,
      });
    }
  } else {
    // Per workload, the contestants whose ratios the targets judge run back to back (seconds apart), the SDKs after
    // them: a change in the machine's load then seldom falls between the floor's runs and chatflux's. (Alternating
    // their runs between live processes was tried: each run then starts with caches the other processes evicted,
    // which costs chatflux, with the most code, the most — +10–15% against +0–5% for the floor.)
    for (const spec of specs) {
      const applicable = CONTESTANT_NAMES.filter((c) => spec.kind === 'tool' || !TOOL_ONLY.has(c));
      for (const contestant of applicable.filter(steady))
        tasks.push({ contestant, specs: [spec], warmup: ratioWarmup, reps: ratioReps, budgetMs });
      for (const contestant of applicable.filter((c) => !steady(c)))
        tasks.push({ contestant, specs: [spec], warmup, reps, budgetMs });
    }
  }
  log(
    `parsing: ${tasks.length} processes, ${warmup} warm-up + ${reps} measured runs each` +
      (quick ? '' : ` (floor, eventsource-parser, chatflux: ${ratioWarmup} + ${ratioReps})`),
  );
  for (const task of tasks) {
    for (const report of await runChild(task)) {
      reports.push(report);
      logReport(report);
    }
  }
  return { specs, reports, warmup, reps, ...(quick ? {} : { ratioWarmup, ratioReps }) };
}

async function main(): Promise<void> {
  if (process.env['BENCH_CHATFLUX'] !== 'source') {
    log(`compiled ${buildChatflux()} files of src/ to bench/.tmp/dist (chatflux is measured as built JavaScript)`);
  }
  const earlierRuns: RunSummary[] = [];
  const peerRuns: PeerRun[] = [];
  for (let run = 1; run <= runs; run++) {
    if (runs > 1) log(`run ${run} of ${runs}`);
    const failed = only === 'perf3' ? await peerRun(peerRuns) : await oneRun(earlierRuns, peerRuns);
    if (failed) {
      log('FAILED: a contestant produced a wrong answer or crashed (see above)');
      process.exitCode = 1;
      return;
    }
  }
}

const RESULTS = join(__dirname, 'RESULTS.md');
const previousResults = (): string =>
  existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '# chatflux benchmark results\n';

/** Performance III alone: measures, adds the run to `peerRuns`, rewrites its section of RESULTS.md (the rest kept). */
async function peerRun(peerRuns: PeerRun[]): Promise<boolean> {
  peerRuns.push(await runPeerBench({ quick, log }));
  writeFileSync(RESULTS, spliceSection(previousResults(), renderPeerSection(peerRuns)));
  log(`wrote the Performance III section of ${RESULTS} (${peerRuns.at(-1)!.seconds.toFixed(0)} s)`);
  return false;
}

/** One full run: measures, rewrites RESULTS.md, adds its targets to `earlierRuns`; true if a contestant failed. */
async function oneRun(earlierRuns: RunSummary[], peerRuns: PeerRun[]): Promise<boolean> {
  const started = Date.now();
  const loadBefore = (await import('node:os')).loadavg();
  const parse = only === 'gateway' ? undefined : await parseSection();
  let gateway: { load: LoadRow[]; memory: MemoryRow[] } | undefined;
  if (only !== 'parse') {
    log('gateway load');
    gateway = await runGatewayBench({ quick, log });
  }
  if (only === undefined) peerRuns.push(await runPeerBench({ quick, log }));
  const loadAfter = (await import('node:os')).loadavg();
  const seconds = (Date.now() - started) / 1000;
  const { markdown, targets } = renderResults({
    quick,
    parse,
    gateway,
    loadBefore,
    loadAfter,
    seconds,
    earlierRuns: [...earlierRuns],
  });
  earlierRuns.push({ targets, loadBefore, loadAfter, seconds });
  const peerSection = peerRuns.length > 0 ? renderPeerSection(peerRuns) : sectionOf(previousResults());
  writeFileSync(RESULTS, peerSection === undefined ? markdown : spliceSection(markdown, peerSection));
  log(`wrote ${RESULTS} in ${seconds.toFixed(0)} s`);
  return parse?.reports.some((r) => r.status === 'failed') === true;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
