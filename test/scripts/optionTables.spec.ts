/**
 * The option tables of the docs are rendered from the options schemas (scripts/optionTables.ts) between markers
 * (`<!-- options:serving -->` … `<!-- /options:serving -->`): a marked table that drifts from its schema fails here —
 * the fixture's, and every one placed in README.md or docs/.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeOptions } from '../../src/core/optionDocs';
import { ServingOptionsSchema } from '../../src/serve/ServingOptionsSchema';
import { fillOptionTables, markdownFiles, OPTION_TABLES, renderOptionTable } from '../../scripts/optionTables';

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(__dirname, '..', 'fixtures', 'options', 'guide.md');

describe('option tables', () => {
  it('the fixture\'s marked table is the schema\'s (run npx tsx scripts/optionTables.ts FILE to update it)', () => {
    const text = readFileSync(FIXTURE, 'utf8');
    expect(fillOptionTables(text)).toBe(text);
    expect(text).toContain(renderOptionTable(describeOptions(ServingOptionsSchema)));
  });

  it.each(markdownFiles(ROOT).map((file) => [file.slice(ROOT.length + 1), file]))('%s: every marked table is the schema\'s', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    expect(fillOptionTables(text)).toBe(text);
  });

  it('fails on a table that drifted: a default, a row, a description changed by hand', () => {
    const text = readFileSync(FIXTURE, 'utf8');
    const drifted = [
      text.replace('| `15000` |', '| `10000` |'),
      text.replace(/^\| `queryLimit`.*\n/m, ''),
      text.replace('The JSON body limit', 'The body limit'),
    ];
    for (const copy of drifted) {
      expect(copy).not.toBe(text);
      expect(fillOptionTables(copy)).not.toBe(copy);
      expect(fillOptionTables(copy)).toBe(text);
    }
  });

  it('renders each row with its type, default, range and description, and leaves the prose alone', () => {
    const rows = describeOptions(ServingOptionsSchema);
    const table = renderOptionTable(rows);
    expect(table.split('\n')).toContain(
      "| `heartbeatMs` | `number` | `15000` | a number of ms ≥ 0 (0 or Infinity: none) | The silence after which a stream writes its heartbeat (: ping on /chat/sse). |",
    );
    expect(table.split('\n')).toContain("| `bodyLimit` | `number \\| string` | `'1mb'` | a number of bytes ≥ 0, or a size such as '512kb' | The JSON body limit; a larger body gets 413. |");
    const text = 'before\n<!-- options:serving -->\nold\n<!-- /options:serving -->\nafter\n';
    expect(fillOptionTables(text)).toBe(`before\n<!-- options:serving -->\n${table}<!-- /options:serving -->\nafter\n`);
  });

  it('refuses a marker naming no table', () => {
    expect(() => fillOptionTables('<!-- options:nope -->\n<!-- /options:nope -->')).toThrow(`<!-- options:nope --> names no option table: use one of ${Object.keys(OPTION_TABLES).join(', ')}`);
  });

  it('the script updates a file, and --check exits 1 on a stale one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'option-tables-'));
    try {
      const file = join(dir, 'guide.md');
      copyFileSync(FIXTURE, file);
      const stale = readFileSync(FIXTURE, 'utf8').replace('| `15000` |', '| `10000` |');
      writeFileSync(file, stale);
      const run = (...args: string[]): string => execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'optionTables.ts'), ...args], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
      expect(() => run('--check', file)).toThrow(/an option table is out of date/);
      run(file);
      expect(readFileSync(file, 'utf8')).toBe(readFileSync(FIXTURE, 'utf8'));
      expect(run('--check', file)).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
