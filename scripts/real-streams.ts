/**
 * Feeds every recorded provider stream of `../shared/real-streams` (outside the project: never copy those files in)
 * through the pipeline under several chunkings and checks the manifest's `expect`, that `accumulateDeltas`,
 * `toOutput`, NDJSON and SSE agree, and that nothing the provider sent is lost. Run by `.ci/run` (`npm run
 * real-streams`), not by `npm test`: a clone of the project alone has no `../shared`.
 *
 *   npm run real-streams                      # ../shared/real-streams
 *   npm run real-streams -- /path/to/corpus   # another folder with a manifest.json
 *
 * Exit status: 0 when every file passes; 1 when one fails (each failure listed); 2 when the folder is missing.
 */
import { join, resolve } from 'node:path';
import { checkCorpus } from './realStreams/checkCorpus';

async function main(): Promise<number> {
  const dir = resolve(
    process.argv[2] ?? process.env.REAL_STREAMS_DIR ?? join(__dirname, '..', '..', 'shared', 'real-streams'),
  );
  const report = await checkCorpus(dir);
  if (report.missing) {
    process.stderr.write(
      `real-streams: no corpus at ${dir} (manifest.json not found); CI provides ../shared/real-streams.\n`,
    );
    return 2;
  }
  const failed = report.results.filter((result) => result.failures.length > 0);
  for (const result of report.results) {
    process.stdout.write(`${result.failures.length === 0 ? 'ok  ' : 'FAIL'} ${result.file} (${result.provider})\n`);
    const shown = result.failures.slice(0, 8);
    for (const failure of shown) process.stdout.write(`       ${failure}\n`);
    if (result.failures.length > shown.length)
      process.stdout.write(`       … and ${result.failures.length - shown.length} more\n`);
  }
  const passed = report.results.length - failed.length;
  process.stdout.write(`\nreal-streams: ${passed}/${report.results.length} files pass (${dir})\n`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`real-streams: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
