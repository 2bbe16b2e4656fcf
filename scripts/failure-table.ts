/**
 * Prints the README's "Failure behaviour" table generated from the fault matrix (test/faults/faultMatrix.ts);
 * with `--write`, replaces the block between the README markers (adds it at the end when they are missing).
 *
 *   npx tsx scripts/failure-table.ts            # print
 *   npx tsx scripts/failure-table.ts --write    # update README.md
 *   npx tsx scripts/failure-table.ts --check    # exit 1 when README.md differs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatFailureTable, readFailureTable, replaceFailureTable } from '../test/faults/formatFailureTable';

const README = join(__dirname, '..', 'README.md');
const block = formatFailureTable();
const mode = process.argv[2];
if (mode === '--write') {
  const readme = readFileSync(README, 'utf8');
  writeFileSync(README, replaceFailureTable(readme, block));
  process.stdout.write('README.md: failure-behaviour table updated\n');
} else if (mode === '--check') {
  if (readFailureTable(readFileSync(README, 'utf8')) !== block) {
    process.stderr.write(
      'README.md: the failure-behaviour table is out of date; run `npm run failure-table -- --write`\n',
    );
    process.exitCode = 1;
  }
} else {
  process.stdout.write(`${block}\n`);
}
