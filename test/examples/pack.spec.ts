/**
 * What `npm pack` would publish: only what users need — the build, the subpath alias, the emulator's bin, and the
 * package's documents. No sources, tests, examples, benchmarks, docs or configuration.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

interface PackResult {
  name: string;
  version: string;
  files: Array<{ path: string }>;
}

/** The files are allowed when they match one of these. */
const ALLOWED = [
  /^dist\/(cjs|esm)\/.+\.(js|d\.ts|js\.map|d\.ts\.map)$/,
  /^dist\/(cjs|esm)\/package\.json$/,
  /^operators\/package\.json$/,
  /^bin\/chatflux-emulator\.cjs$/,
  /^(README\.md|CHANGELOG\.md|LICENSE|package\.json)$/,
];
const REQUIRED = ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'operators/package.json'];

function pack(): PackResult {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  const [result] = JSON.parse(out) as PackResult[];
  if (result === undefined) throw new Error(`npm pack printed no result: ${out}`);
  return result;
}

/** The files the exports map points to. */
function exportTargets(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, Record<string, string>>>;
  };
  return Object.values(pkg.exports).flatMap((entry) =>
    typeof entry === 'string' ? [entry] : Object.values(entry).flatMap((conditions) => Object.values(conditions)),
  );
}

/** Modification times of the export targets (`-1`: absent), to tell whether a build ran during `npm pack`. */
const stamp = (targets: string[]): number[] =>
  targets.map((target) => (existsSync(join(root, target)) ? statSync(join(root, target)).mtimeMs : -1));

describe('npm pack', () => {
  let result: PackResult;
  let paths: string[];
  let targets: string[];
  let stableBuild: boolean;
  beforeAll(() => {
    targets = exportTargets();
    const before = stamp(targets);
    result = pack();
    const after = stamp(targets);
    // test/package builds dist/ (rm -rf, then tsc) and may run in parallel with this file.
    stableBuild = before.every((time, i) => time > 0 && time === after[i]);
    paths = result.files.map((file) => file.path).sort();
  });

  it('publishes the version of package.json and of the changelog', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
    expect(result).toMatchObject({ name: pkg.name, version: pkg.version });
    expect(readFileSync(join(root, 'CHANGELOG.md'), 'utf8')).toContain(`## [${pkg.version}]`);
  });

  it('contains only the build, the subpath alias, the bin and the documents', () => {
    expect(paths.filter((path) => !ALLOWED.some((pattern) => pattern.test(path)))).toEqual([]);
  });

  it('contains the documents, the license and the operators alias', () => {
    for (const file of REQUIRED) expect(paths).toContain(file);
  });

  it('contains no gateway, internal test helpers or TypeScript sources', () => {
    expect(paths.filter((path) => /(^|\/)(gateway|test|examples|bench|src)\//.test(path) || /(?<!\.d)\.ts$/.test(path))).toEqual([]);
  });

  it('contains every entry point of the exports map, when the package is built', () => {
    // The build is `npm run build`; when it is absent or being rewritten, only the checks above apply.
    if (stableBuild) for (const target of targets) expect(paths).toContain(target.replace(/^\.\//, ''));
    expect(targets.length).toBeGreaterThan(0);
  });
});
