/**
 * One contestant on one workload, in its own process (forked by run.ts with `--import tsx --expose-gc`).
 *
 * Builds each workload (deterministic, so nothing large crosses IPC), runs `warmup` unmeasured runs and `reps` measured
 * ones, checks EVERY run's result against the expected text / arguments, and sends its `ChildReport`s to the parent.
 */
import { CONTESTANTS, PARSED_TOOL_ARGS, type ContestantName, type Outcome } from './contestants.js';
import { buildWorkload, type Workload, type WorkloadSpec } from './workloads.js';

export interface ChildTask {
  contestant: ContestantName;
  /** Usually one workload; `--quick` runs all of a contestant's workloads in one process (peak RSS is then shared). */
  specs: WorkloadSpec[];
  warmup: number;
  reps: number;
  /** A run slower than this ends the measurement after it; so does a total over 3× this after 3 runs. */
  budgetMs: number;
}

export interface ChildReport {
  contestant: string;
  workload: string;
  status: 'ok' | 'not available' | 'failed' | 'over budget';
  message?: string;
  /** Measured run times in ms. */
  times: number[];
  bytes: number;
  events: number;
  chunks: number;
  /** RSS after the workload was built and a GC ran (MB). */
  baselineRssMb: number;
  /** The process's peak RSS (MB, `process.resourceUsage().maxRSS`). */
  peakRssMb: number;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function check(name: string, got: Outcome, workload: Workload): void {
  const want = workload.expected;
  if (got.text !== want.text) {
    throw new Error(
      `${name}: text differs (got ${got.text.length} chars, want ${want.text.length}): ${JSON.stringify(got.text.slice(0, 80))}…`,
    );
  }
  if (want.toolArgs !== undefined) {
    const wantArgs = PARSED_TOOL_ARGS.has(name) ? JSON.stringify(JSON.parse(want.toolArgs)) : want.toolArgs;
    if (got.toolArgs !== wantArgs) {
      throw new Error(
        `${name}: tool arguments differ (got ${got.toolArgs?.length ?? 'none'} chars, want ${wantArgs.length})`,
      );
    }
    if (got.toolName !== want.toolName) throw new Error(`${name}: tool name ${got.toolName} != ${want.toolName}`);
  }
}

function isMissingModule(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

export async function runTask(task: ChildTask): Promise<ChildReport[]> {
  const reports: ChildReport[] = [];
  for (const spec of task.specs) reports.push(await runOne(task, spec));
  return reports;
}

async function runOne(task: ChildTask, spec: WorkloadSpec): Promise<ChildReport> {
  const workload = buildWorkload(spec);
  gc();
  const report: ChildReport = {
    contestant: task.contestant,
    workload: workload.name,
    status: 'ok',
    times: [],
    bytes: workload.bytes,
    events: workload.events,
    chunks: workload.chunks.length,
    baselineRssMb: process.memoryUsage().rss / 1048576,
    peakRssMb: 0,
  };
  const run = CONTESTANTS[task.contestant];
  try {
    // No forced GC between runs (only once, before the baseline RSS): a full GC with every object of the last run
    // dead also frees the hidden classes of its parsed JSON, so the next run deoptimizes every function optimized for
    // them ("wrong map") and starts cold again — 100 deoptimizations in 9 runs of chatflux instead of 19, 16 instead
    // of 7 for the floor. A service parsing streams all day keeps them; the bench measures that steady state.
    const once = async (): Promise<number> => {
      const start = performance.now();
      const outcome = await run(workload.chunks);
      const ms = performance.now() - start;
      check(task.contestant, outcome, workload);
      return ms;
    };
    // Warm-up: a warm-up run over the budget is the only run (cold, noted); later ones are skipped.
    for (let i = 0; i < task.warmup; i++) {
      const ms = await once();
      if (ms > task.budgetMs) {
        report.times.push(ms);
        report.status = 'over budget';
        report.message = `the warm-up run took ${(ms / 1000).toFixed(1)} s (budget ${task.budgetMs / 1000} s): that cold run is the figure`;
        break;
      }
    }
    // Measured runs: stop after a run over the budget, or after 3 runs once the total exceeds 3 budgets.
    let total = 0;
    for (let i = 0; i < task.reps && report.status === 'ok'; i++) {
      const ms = await once();
      report.times.push(ms);
      total += ms;
      const last = i === task.reps - 1;
      if (!last && (ms > task.budgetMs || (report.times.length >= 3 && total > 3 * task.budgetMs))) {
        report.status = 'over budget';
        report.message = `${report.times.length} measured run(s) (budget ${task.budgetMs / 1000} s a run)`;
      }
    }
  } catch (error) {
    report.status = isMissingModule(error) ? 'not available' : 'failed';
    report.message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
  report.peakRssMb = process.resourceUsage().maxRSS / 1024;
  return report;
}

if (require.main === module && process.send) {
  const task = JSON.parse(process.argv[2] ?? '{}') as ChildTask;
  void runTask(task).then((reports) => {
    process.send!(reports, () => process.exit(0));
  });
}
