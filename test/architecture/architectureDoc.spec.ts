/**
 * docs/ARCHITECTURE.md says what is true: every file it names exists (the gateway package's `gateway/…` paths aside,
 * which its own move creates), its layer table is scripts/layers.mjs (`LAYERS`, the rule the linter enforces), every
 * folder of src/ has its row, and every endpoint has the list of files its bytes pass through.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'ARCHITECTURE.md'), 'utf8');

/** scripts/layers.mjs's `LAYERS`, read by Node itself (an ES module, which jest's module VM cannot load). */
const LAYERS = JSON.parse(
  execFileSync(process.execPath, ['--input-type=module', '-e', "const { LAYERS } = await import('./scripts/layers.mjs'); console.log(JSON.stringify(LAYERS));"], {
    cwd: root,
    encoding: 'utf8',
  }),
) as Record<string, string[]>;

/** The layer table's rows: folder → the folders its "may import" column names. */
const rows = new Map(
  [...doc.matchAll(/^\| `(\w+)\/` \| .* \| (.*) \|$/gm)].map((match) => [
    match[1] ?? '',
    match[2] === 'nothing of ours' ? [] : [...(match[2] ?? '').matchAll(/`(\w+)\/`/g)].map((folder) => folder[1] ?? ''),
  ]),
);

describe('docs/ARCHITECTURE.md', () => {
  it('names only files that exist (paths in code spans and links)', () => {
    const named = [
      ...[...doc.matchAll(/`((?:src|test|scripts|examples|bench|docs|gateway)\/[^`\s]*)`/g)].map((match) => match[1] ?? ''),
      ...[...doc.matchAll(/\]\(\.\.\/([^)#\s]+)\)/g)].map((match) => match[1] ?? ''),
    ];
    expect(named.length).toBeGreaterThan(50);
    expect([...new Set(named)].filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('draws the layer table of scripts/layers.mjs', () => {
    const layers = Object.entries(LAYERS).filter(([layer]) => layer !== 'gateway'); // the gateway: its own package
    expect(layers.length).toBeGreaterThan(10);
    for (const [layer, allowed] of layers) expect({ layer, mayImport: rows.get(layer) }).toEqual({ layer, mayImport: allowed });
  });

  it('gives every folder of src/ its row', () => {
    const folders = readdirSync(join(root, 'src')).filter((name) => statSync(join(root, 'src', name)).isDirectory() && name !== 'gateway');
    expect(folders.filter((folder) => !rows.has(folder))).toEqual([]);
  });

  it('follows every endpoint through its files', () => {
    const endpoints = ['POST /chat/json', 'POST /chat/stream', 'POST /chat/sse', 'GET /chat/sse', 'POST /chat/token', 'POST /v1/chat/completions', 'GET /v1/models'];
    for (const endpoint of endpoints) {
      const at = doc.indexOf(`### \`${endpoint}\`\n`);
      expect({ endpoint, found: at !== -1 }).toEqual({ endpoint, found: true });
      const section = doc.slice(at, doc.indexOf('\n### ', at + 1));
      expect({ endpoint, serves: section.includes('src/serve/createServingCore.ts') || section.includes('as above') }).toEqual({ endpoint, serves: true });
    }
  });
});
