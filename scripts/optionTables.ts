/**
 * Renders the option tables (name, type, default, range, description) from the options schemas into markdown files,
 * between markers: `<!-- options:serving -->` … `<!-- /options:serving -->` (the serving options, `ServingOptionsSchema`)
 * `<!-- options:gateway -->` … `<!-- /options:gateway -->` (the gateway's config file, `GatewayFileSchema`) and
 * `<!-- options:gateway-env -->` … (the environment variables over it, `GATEWAY_SETTINGS`). The
 * markers stay; what is between them is replaced. test/scripts/optionTables.spec.ts fails when a marked table drifts
 * from its schema.
 *
 *   npm run option-tables                           # update every marked table in README.md and docs/**\/*.md
 *   npx tsx scripts/optionTables.ts --check         # exit 1 when one is out of date
 *   npx tsx scripts/optionTables.ts FILE.md …       # those files only (with or without --check)
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describeOptions, type OptionRow } from '../src/core/optionDocs';
import { GATEWAY_SETTINGS } from '../gateway/src/GATEWAY_SETTINGS';
import { GatewayFileSchema } from '../gateway/src/GatewayFileSchema';
import { ServingOptionsSchema } from '../src/serve/ServingOptionsSchema';

/** The environment variables over the gateway's config file, one key each (`GATEWAY_SETTINGS`), with the key's default and description. */
function renderEnvTable(): string {
  const rows = new Map(describeOptions(GatewayFileSchema).map((row) => [row.name, row]));
  const lines = ['| variable | config key | default | description |', '| --- | --- | --- | --- |'];
  for (const setting of GATEWAY_SETTINGS) {
    const row = rows.get(setting.key);
    if (setting.env === undefined || row === undefined) continue;
    lines.push(`| \`${setting.env}\` | \`${setting.key}\` | ${row.defaultIsValue ? code(row.default) : cell(row.default)} | ${cell(row.description)} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** The tables a marker may name, each rendered from its schema. */
export const OPTION_TABLES: Readonly<Record<string, () => string>> = {
  serving: () => renderOptionTable(describeOptions(ServingOptionsSchema)),
  gateway: () => renderOptionTable(describeOptions(GatewayFileSchema)),
  'gateway-env': renderEnvTable,
};

const MARKED = /<!-- options:([\w-]+) -->\n[\s\S]*?<!-- \/options:\1 -->/g;
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string): string => (text === '—' ? text : `\`${cell(text)}\``);

/**
 * One option table in markdown.
 *
 * @param rows - The rows (`describeOptions`).
 * @returns The table, one line per option, ending with a newline.
 */
export function renderOptionTable(rows: readonly OptionRow[]): string {
  const lines = ['| option | type | default | range | description |', '| --- | --- | --- | --- | --- |'];
  for (const row of rows) lines.push(`| \`${row.name}\` | ${code(row.type)} | ${row.defaultIsValue ? code(row.default) : cell(row.default)} | ${cell(row.range)} | ${cell(row.description)} |`);
  return `${lines.join('\n')}\n`;
}

/**
 * Replaces every marked table of a markdown text with its rendering.
 *
 * @param markdown - The text.
 * @param tables - The tables by the name its markers use.
 * @returns The text with each marked table rendered from its schema (the markers kept).
 * @throws Error naming a marker whose table does not exist.
 */
export function fillOptionTables(markdown: string, tables: Readonly<Record<string, () => string>> = OPTION_TABLES): string {
  return markdown.replace(MARKED, (_block, name: string) => {
    const render = tables[name];
    if (render === undefined) throw new Error(`<!-- options:${name} --> names no option table: use one of ${Object.keys(tables).join(', ')}`);
    return `<!-- options:${name} -->\n${render()}<!-- /options:${name} -->`;
  });
}

/** The markdown files the tables may be placed in: README.md and docs/**\/*.md. */
export function markdownFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'api' ? [] : walk(path);
      return name.endsWith('.md') ? [path] : [];
    });
  return [join(root, 'README.md'), ...walk(join(root, 'docs'))];
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const root = join(__dirname, '..');
  const named = args.filter((arg) => arg !== '--check');
  let stale = 0;
  for (const file of named.length > 0 ? named : markdownFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const filled = fillOptionTables(text);
    if (filled === text) continue;
    if (check) {
      stale += 1;
      process.stderr.write(`${relative(root, file)}: an option table is out of date; run npx tsx scripts/optionTables.ts\n`);
    } else {
      writeFileSync(file, filled);
      process.stdout.write(`${relative(root, file)}: option tables updated\n`);
    }
  }
  if (stale > 0) process.exitCode = 1;
}
