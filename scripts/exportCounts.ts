/**
 * Prints, for each entry point of the package, how many names it exports: every name (from the TypeScript
 * checker), the runtime values among them (`Object.keys` of the loaded module) and the type-only rest, with the zod
 * schemas among the values. The figures behind the issue's "the root entry exports 157 names (94 values)".
 *
 *   npx tsx scripts/exportCounts.ts           # the table
 *   npx tsx scripts/exportCounts.ts --names   # and each entry's runtime names
 */
import 'reflect-metadata';
import { entryFile, exportedNames, PUBLIC_ENTRIES, runtimeNames } from '../test/helpers/publicEntries';

/** Whether a runtime export is a zod schema (a value with zod's `_zod` internals). */
const isZodSchema = (value: unknown): boolean => typeof value === 'object' && value !== null && '_zod' in value;

async function main(): Promise<void> {
  const all = exportedNames();
  const rows: string[][] = [['entry', 'names', 'values', 'type-only', 'zod schemas']];
  const listing: string[] = [];
  for (const [specifier, file] of PUBLIC_ENTRIES) {
    const loaded = (await import(entryFile(file))) as Record<string, unknown>;
    const values = runtimeNames(loaded);
    const names = all.get(specifier) ?? [];
    const schemas = values.filter((key) => isZodSchema(loaded[key]));
    rows.push([specifier, String(names.length), String(values.length), String(names.length - values.length), String(schemas.length)]);
    listing.push(`${specifier} (${values.length}): ${values.join(', ')}`);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]): string => `| ${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |`;
  const out = [line(rows[0]!), `|${widths.map((width, column) => (column === 0 ? `${'-'.repeat(width + 1)}-` : `${'-'.repeat(width + 1)}:`)).join('|')}|`, ...rows.slice(1).map(line)];
  if (process.argv.includes('--names')) out.push('', ...listing);
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
