/**
 * Profiles one contestant on one workload and prints where the time goes (self time by function and by file).
 *
 *   npx tsx bench/profile.ts [workload=a|b|c] [contestant="chatflux accumulateDeltas"] [runs=5]
 *
 * The measured runs are profiled with the inspector's CPU profiler (the same as `node --cpu-prof`, without the workload
 * building and module loading in it); the profile lands in bench/.tmp/prof/ (open it in Chrome DevTools).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join, relative } from 'node:path';
import { CONTESTANTS, type ContestantName } from './contestants.js';
import { buildChatflux } from './lib/buildChatflux.js';
import { buildWorkload, workloadSpecs } from './workloads.js';

const DIR = join(__dirname, '.tmp', 'prof');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function and per file, in ms, from a `.cpuprofile`. */
export function summarise(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, ms] of self) {
    const frame = byId.get(id)!.callFrame;
    const where = frame.url ? relative(process.cwd(), frame.url.replace('file://', '')) : '(native)';
    const fn = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + ms);
    const key = where.includes('node_modules/')
      ? where.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, 'node_modules/$1')
      : where;
    files.set(key, (files.get(key) ?? 0) + ms);
  }
  const lines = [`total sampled: ${total.toFixed(0)} ms`, '', 'self time by function:'];
  for (const [fn, ms] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${ms.toFixed(1).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${fn}`);
  }
  lines.push('', 'self time by file / package:');
  for (const [f, ms] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    lines.push(`  ${ms.toFixed(1).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${f}`);
  }
  return lines.join('\n');
}

/** Profiles `runs` runs (after one warm-up) with the inspector, so that building the workload is not in the profile. */
async function profileRun(workloadName: string, contestant: ContestantName, runs: number): Promise<string> {
  const spec = workloadSpecs(false).find((s) => s.name === workloadName);
  if (!spec) throw new Error(`unknown workload ${workloadName} (a, b, c, d-50KB, d-800KB)`);
  const workload = buildWorkload(spec);
  const run = CONTESTANTS[contestant];
  await run(workload.chunks);
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run(workload.chunks);
    process.stdout.write(`run ${i + 1}: ${(performance.now() - start).toFixed(1)} ms\n`);
  }
  const { profile } = (await post('Profiler.stop')) as { profile: Profile };
  session.disconnect();
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, `${workloadName}-${contestant.replace(/\W+/g, '_')}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

if (require.main === module) {
  if (process.env['BENCH_CHATFLUX'] !== 'source') buildChatflux();
  const [workloadName = 'a', contestant = 'chatflux accumulateDeltas', runs = '5'] = process.argv.slice(2);
  void profileRun(workloadName, contestant as ContestantName, Number(runs)).then((file) => {
    process.stdout.write(`${file}\n${summarise(file)}\n`);
  });
}
