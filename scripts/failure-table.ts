/**
 * Prints the "Failure behaviour" table of docs/endpoints.md generated from the fault matrix (test/faults/faultMatrix.ts);
 * with `--write`, replaces the block between the guide's markers (adds it at the end when they are missing).
 *
 *   npx tsx scripts/failure-table.ts            # print
 *   npx tsx scripts/failure-table.ts --write    # update docs/endpoints.md
 *   npx tsx scripts/failure-table.ts --check    # exit 1 when docs/endpoints.md differs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAILURE_TABLE_DOC, formatFailureTable, readFailureTable, replaceFailureTable } from '../test/faults/formatFailureTable';

const DOC = join(__dirname, '..', FAILURE_TABLE_DOC);
const block = formatFailureTable();
const mode = process.argv[2];
if (mode === '--write') {
  writeFileSync(DOC, replaceFailureTable(readFileSync(DOC, 'utf8'), block));
  process.stdout.write(`${FAILURE_TABLE_DOC}: failure-behaviour table updated\n`);
} else if (mode === '--check') {
  if (readFailureTable(readFileSync(DOC, 'utf8')) !== block) {
    process.stderr.write(`${FAILURE_TABLE_DOC}: the failure-behaviour table is out of date; run \`npm run failure-table -- --write\`\n`);
    process.exitCode = 1;
  }
} else {
  process.stdout.write(`${block}\n`);
}
