import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const subpaths = Object.keys(pkg.exports).filter((p) => p !== './package.json');

/** Runs `code` in a fresh Node process inside the package, so `chatflux` resolves through its own `exports`. */
function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60_000 });
}

describe('the built package', () => {
  beforeAll(() => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'pipe', timeout: 240_000 });
  }, 300_000);

  it('builds CommonJS and ES module trees with type declarations', () => {
    for (const file of ['dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/esm/index.js', 'dist/esm/index.d.ts']) {
      expect(existsSync(join(root, file))).toBe(true);
    }
  });

  it.each(subpaths)('require and import of %s expose the same names', (subpath) => {
    const specifier = subpath === '.' ? 'chatflux' : `chatflux/${subpath.slice(2)}`;
    const viaRequire = node(['-e', `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(specifier)})).sort()))`]);
    const viaImport = node([
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default').sort()))`,
    ]);
    const names = JSON.parse(viaRequire) as string[];
    expect(names.length).toBeGreaterThan(0);
    expect(JSON.parse(viaImport)).toEqual(names);
  });

  it('runs a pipeline from the ES module build', () => {
    const out = node([
      '--input-type=module',
      '-e',
      [
        "import { of, lastValueFrom } from 'rxjs';",
        "import { parseSse, decodeChunk, toOutput } from 'chatflux';",
        "const sse = 'data: {\"id\":\"c1\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"你好\"},\"finish_reason\":\"stop\"}]}\\n\\ndata: [DONE]\\n\\n';",
        'const out = await lastValueFrom(of(new TextEncoder().encode(sse)).pipe(parseSse(), decodeChunk(), toOutput()));',
        'console.log(out.message.content);',
      ].join('\n'),
    ]);
    expect(out.trim()).toBe('你好');
  });

  it('resolves chatflux/operators through the top-level operators/package.json for resolvers without exports', () => {
    const alias = JSON.parse(readFileSync(join(root, 'operators', 'package.json'), 'utf8')) as { main: string };
    expect(existsSync(join(root, 'operators', alias.main))).toBe(true);
  });
});
