/**
 * Keeps the README and the guides in docs/ honest:
 * - every ```ts block of README.md and of each docs/*.md type-checks against the real API (with `chatflux` resolved
 *   through tsconfig `paths`);
 * - every ```ts block with an `// output:` comment runs (`tsx`) and prints exactly that;
 * - the quick start is examples/quickstart.ts, verbatim (which examples.spec.ts runs against the emulator);
 * - the README is a front page (under 400 lines) that links every guide, and each guide has its own contents;
 * - its test line names every system package the test setup may install, and every command that sends the emulator a
 *   fault scenario says the setting it needs (`CHATFLUX_EMULATOR_SCENARIOS=true`: without it the answer is normal), and
 *   every `npx tsx` says to install tsx first (a new project has none: npx would stop to ask) or is `npx --yes tsx`.
 * Excerpts that are not whole programs are fenced as ```typescript and only read by people.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { TOOLS } from '../setup/TOOLS';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
/** The guides: every Markdown file of docs/ (not docs/api/, TypeDoc's output), by their path from the root. */
const guides = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const documents = ['README.md', ...guides];
const run = promisify(execFile);

interface Snippet {
  /** The document it is in, by its path from the root. */
  doc: string;
  n: number;
  code: string;
  expected?: string;
}

const snippetsOf = (doc: string): Snippet[] =>
  [...readFileSync(join(root, doc), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, n) => {
    const code = match[1] ?? '';
    const at = code.indexOf('// output:\n');
    if (at === -1) return { doc, n, code };
    const expected = code
      .slice(at + '// output:\n'.length)
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => line.replace(/^\/\/ ?/, ''))
      .join('\n');
    return { doc, n, code, expected };
  });
const snippets: Snippet[] = documents.flatMap(snippetsOf);
const runnable = snippets.filter((s): s is Required<Snippet> => s.expected !== undefined);

// Inside the repository, so that tsx and tsc find tsconfig.json (paths) and node_modules; removed afterwards.
const dir = join(root, 'test', 'examples', `.readme-snippets-${process.pid}`);
const fileOf = (snippet: Snippet): string => join(dir, `${snippet.doc.replace(/[^\w]/g, '-')}-snippet-${snippet.n}.ts`);

describe('README.md and the guides in docs/', () => {
  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    // `export {}` makes each snippet a module, so that their top-level names do not collide.
    for (const snippet of snippets) writeFileSync(fileOf(snippet), `${snippet.code}\nexport {};\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts with the two commands', () => {
    expect(readme.split('\n').slice(0, 5)).toEqual([
      '# chatflux',
      '',
      '```sh',
      expect.stringMatching(/^npm ci && npm start {3}# /),
      expect.stringMatching(/^npm ci && npm test {4}# /),
    ]);
  });

  it('names on its test line every system package the test setup may install (test/setup/TOOLS.ts)', () => {
    const testLine = (readme.split('\n')[4] ?? '').toLowerCase();
    expect(TOOLS.length).toBeGreaterThan(0);
    for (const tool of TOOLS) expect(testLine).toContain(tool.debianPackage);
  });

  it('says, in each command that sends the emulator a fault scenario, the setting the gateway needs for it', () => {
    const faulty = documents.map((doc) => join(root, doc)).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)]
        .map((match) => match[1] ?? '')
        .filter((block) => /"model":\s*"[^"#]*#[^"]+"|x-emulator-scenario/i.test(block))
        .map((block) => ({ file: relative(root, file), block })),
    );
    expect(faulty.length).toBeGreaterThanOrEqual(2); // docs/endpoints.md's rate limit and cut stream
    for (const { file, block } of faulty) expect({ file, block, says: block.includes('CHATFLUX_EMULATOR_SCENARIOS=true') }).toMatchObject({ says: true });
  });

  it('says to install tsx wherever it runs a file with `npx tsx` (or runs it with `npx --yes tsx`)', () => {
    const bare = documents.map((doc) => join(root, doc)).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(/npx tsx /g)]
        .filter((match) => !text.slice(Math.max(0, match.index - 400), match.index).includes('npm install --save-dev tsx'))
        .map((match) => `${relative(root, file)}: ${text.slice(match.index, text.indexOf('\n', match.index))}`);
    });
    expect(bare).toEqual([]);
  });

  it('shows examples/quickstart.ts verbatim as the quick start', () => {
    const quickstart = readFileSync(join(root, 'examples', 'quickstart.ts'), 'utf8');
    expect(snippetsOf('README.md').map((s) => s.code)).toContain(quickstart);
  });

  it('has runnable snippets for the operators', () => {
    expect(runnable.filter((s) => s.doc === 'docs/operators.md').length).toBeGreaterThanOrEqual(10);
  });

  it('reads the snippets of the guides too', () => {
    const withSnippets = new Set(snippets.map((s) => s.doc));
    for (const doc of ['docs/operators.md', 'docs/client.md', 'docs/endpoints.md', 'docs/adapters.md', 'docs/failover.md', 'docs/observability.md']) {
      expect(withSnippets).toContain(doc);
    }
  });

  it('is a front page: under 400 lines, linking every guide, each guide with its own contents', () => {
    expect(readme.split('\n').length).toBeLessThan(400);
    const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((match) => match[1]);
    expect(guides.length).toBeGreaterThanOrEqual(10);
    expect(guides.filter((guide) => !linked.includes(guide))).toEqual([]);
    const withoutContents = guides.filter((guide) => guide !== 'docs/PROVIDERS.md').filter(
      (guide) => !/^\*\*Contents\*\* — \[/m.test(readFileSync(join(root, guide), 'utf8')),
    );
    expect(withoutContents).toEqual([]);
  });

  it('type-checks every ts snippet', async () => {
    const tsconfig = join(dir, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: relative(dir, join(root, 'tsconfig.json')),
        compilerOptions: { noEmit: true, noUnusedLocals: true },
        include: [],
        files: snippets.map((s) => relative(dir, fileOf(s))),
      }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', tsconfig], { cwd: root, timeout: 120_000 }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe('');
  }, 150_000);

  it.each(runnable.map((s) => [s.doc, s.n, s] as const))('%s: snippet %i prints its // output:', async (_doc, _n, snippet) => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', fileOf(snippet)], {
      cwd: root,
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(stdout.replace(/\n$/, '')).toBe(snippet.expected);
  });
});
