/**
 * The layer rules of docs/ARCHITECTURE.md are real: the project's own ESLint config (what `npm run lint` runs) refuses
 * an import against the direction of scripts/layers.mjs, and a circle of imports.
 *
 * The texts are linted through the ESLint Node API in a child process (lintTexts.mjs). The circles need files on
 * disk (import-x/no-cycle and chatflux/no-type-import-cycle follow the imports): they are planted in a temporary folder
 * under src/ in folders named `planted-cycle-*`, which the build leaves out (tsconfig.build.json's `exclude`), so a build
 * running in parallel never compiles them — and removed at the end. import-x/no-cycle skips type-only imports; the circles they close are chatflux/no-type-import-cycle's
 * (scripts/importCircles.mjs), and the layer zones count them as any import.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const PLANT_PREFIX = 'planted-cycle-';
const PLANT_PARENT = join(ROOT, 'src');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

/** Lints each `{ code, filePath }` with eslint.config.mjs; returns each text's messages. */
async function lintTexts(texts: Array<{ code: string; filePath: string }>): Promise<LintMessage[][]> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(__dirname, 'lintTexts.mjs'), JSON.stringify(texts)], {
    cwd: ROOT,
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as LintMessage[][];
}

const removePlanted = (): void => {
  for (const name of readdirSync(PLANT_PARENT)) {
    if (name.startsWith(PLANT_PREFIX)) rmSync(join(PLANT_PARENT, name), { recursive: true, force: true });
  }
};

const rules = (messages: LintMessage[] | undefined): Array<string | null> => (messages ?? []).map((m) => m.ruleId);

describe('the layer rules (scripts/layers.mjs through eslint.config.mjs)', () => {
  let results: LintMessage[][];
  beforeAll(async () => {
    removePlanted(); // a run killed before its cleanup must not leave a circle for `npm run lint`
    const dir = mkdtempSync(join(PLANT_PARENT, PLANT_PREFIX));
    try {
      const a = join(dir, 'a.ts');
      const aCode = "import { b } from './b.js';\n\nexport const a = (): number => b() + 1;\n";
      writeFileSync(a, aCode);
      writeFileSync(join(dir, 'b.ts'), "import { a } from './a.js';\n\nexport const b = (): number => a() - 1;\n");
      // c.ts ⇄ d.ts, type-only both ways (`import type`).
      const c = join(dir, 'c.ts');
      const cCode = "import type { D } from './d.js';\n\nexport interface C {\n  d?: D;\n}\n";
      writeFileSync(c, cCode);
      writeFileSync(join(dir, 'd.ts'), "import type { C } from './c.js';\n\nexport interface D {\n  c?: C;\n}\n");
      // e.ts → f.ts by value, f.ts → e.ts by an inline type specifier (`import { type E }`).
      const e = join(dir, 'e.ts');
      const eCode = "import { f } from './f.js';\n\nexport interface E {\n  n: number;\n}\n\nexport const e = (): E => ({ n: f() });\n";
      const f = join(dir, 'f.ts');
      const fCode = "import { type E } from './e.js';\n\nexport const f = (): number => 1;\n\nexport const isE = (value: E): boolean => value.n > 0;\n";
      writeFileSync(e, eCode);
      writeFileSync(f, fCode);
      // g.ts → h.ts, type-only, no way back (the control).
      const g = join(dir, 'g.ts');
      const gCode = "import type { H } from './h.js';\n\nexport const g = (value: H): number => value.n;\n";
      writeFileSync(g, gCode);
      writeFileSync(join(dir, 'h.ts'), 'export interface H {\n  n: number;\n}\n');
      results = await lintTexts([
        // operators/ → source/: siblings, both above core/ only.
        { code: "import { fromBody } from '../source/fromBody.js';\n\nexport const planted = fromBody;\n", filePath: join(ROOT, 'src/operators/planted.ts') },
        // core/ → operators/: upwards.
        { code: "import { parseSse } from '../operators/parseSse.js';\n\nexport const planted = parseSse;\n", filePath: join(ROOT, 'src/core/planted.ts') },
        // operators/ → core/: allowed (the control: the same kind of text, linted clean).
        { code: "import { RequestError } from '../core/errors.js';\n\nexport const planted = RequestError;\n", filePath: join(ROOT, 'src/operators/planted.ts') },
        // a.ts ⇄ b.ts.
        { code: aCode, filePath: a },
        // core/ → operators/ by a type-only import: upwards all the same.
        {
          code: "import type { ContinuationSegment } from '../operators/continueAfterCut.js';\n\nexport type Planted = ContinuationSegment;\n",
          filePath: join(ROOT, 'src/core/planted.ts'),
        },
        // c.ts ⇄ d.ts (type-only), e.ts ⇄ f.ts (closed by a type-only import, seen from each side), g.ts → h.ts.
        { code: cCode, filePath: c },
        { code: eCode, filePath: e },
        { code: fCode, filePath: f },
        { code: gCode, filePath: g },
        // serve/ → node/: the serving core sees no transport.
        { code: "import { writeResponse } from '../node/writeResponse.js';\n\nexport const planted = writeResponse;\n", filePath: join(ROOT, 'src/serve/planted.ts') },
        // web/ → node/: the web handlers stand on the core, not on node's adapter.
        { code: "import { readJsonBody } from '../node/readJsonBody.js';\n\nexport const planted = readJsonBody;\n", filePath: join(ROOT, 'src/web/planted.ts') },
        // node/ → serve/: allowed (the control).
        { code: "import { createServingCore } from '../serve/createServingCore.js';\n\nexport const planted = createServingCore;\n", filePath: join(ROOT, 'src/node/planted.ts') },
        // The gateway package → a library file by its path (a value, then a type only), and → a public entry (the control).
        { code: "import { ConfigError } from '../../src/core/errors.js';\n\nexport const planted = ConfigError;\n", filePath: join(ROOT, 'gateway/src/planted.ts') },
        { code: "import type { RouteCall } from '../../src/client/RouteCall.js';\n\nexport type Planted = RouteCall;\n", filePath: join(ROOT, 'gateway/src/planted.ts') },
        { code: "import { ConfigError } from 'chatflux';\n\nexport const planted = ConfigError;\n", filePath: join(ROOT, 'gateway/src/planted.ts') },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
  afterAll(removePlanted);

  it('an import from src/operators/ into src/source/ fails import-x/no-restricted-paths', () => {
    expect(rules(results[0])).toContain('import-x/no-restricted-paths');
    expect(results[0]?.find((m) => m.ruleId === 'import-x/no-restricted-paths')?.message).toMatch(/operators\/ may not import source\//);
  });

  it('an import from src/core/ into src/operators/ fails import-x/no-restricted-paths', () => {
    expect(rules(results[1])).toContain('import-x/no-restricted-paths');
  });

  it('an import in the allowed direction passes', () => {
    expect(results[2]).toEqual([]);
  });

  it('the serving core (src/serve/) may not import a transport (src/node/), nor src/web/ the node adapter', () => {
    expect(results[9]?.find((m) => m.ruleId === 'import-x/no-restricted-paths')?.message).toMatch(/serve\/ may not import node\//);
    expect(results[10]?.find((m) => m.ruleId === 'import-x/no-restricted-paths')?.message).toMatch(/web\/ may not import node\//);
    expect(results[11]).toEqual([]);
  });

  it('the gateway package reaches the library through its public entry points only, type-only imports included', () => {
    for (const result of [results[12], results[13]]) {
      expect(rules(result)).toEqual(['no-restricted-imports']);
      expect(result?.[0]?.message).toMatch(/public entry points only/);
    }
    expect(results[14]).toEqual([]);
  });

  it('a two-file circle is reported by import-x/no-cycle', () => {
    expect(rules(results[3])).toEqual(['import-x/no-cycle']);
  });

  it('a type-only import against the layers fails import-x/no-restricted-paths', () => {
    expect(rules(results[4])).toEqual(['import-x/no-restricted-paths']);
    expect(results[4]?.[0]?.message).toMatch(/core\/ may not import operators\//);
  });

  it('a two-file circle of type-only imports is reported by chatflux/no-type-import-cycle', () => {
    expect(rules(results[5])).toEqual(['chatflux/no-type-import-cycle']);
    expect(results[5]?.[0]?.message).toMatch(/c\.ts → .*d\.ts → .*c\.ts/);
  });

  it('a circle closed by a type-only import is reported on both sides', () => {
    expect(rules(results[6])).toEqual(['chatflux/no-type-import-cycle']);
    expect(rules(results[7])).toEqual(['chatflux/no-type-import-cycle']);
  });

  it('a type-only import that closes no circle passes', () => {
    expect(results[8]).toEqual([]);
  });

  it('leaves nothing planted under src/', () => {
    expect(readdirSync(PLANT_PARENT).filter((name) => name.startsWith(PLANT_PREFIX))).toEqual([]);
  });
});
