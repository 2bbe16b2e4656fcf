/**
 * The package as a user gets it: `npm pack` of this repository (its `prepare` builds dist/), installed with npm into
 * temporary projects beside the peer dependencies of a given version (from the npm registry, or npm's cache).
 *
 * Packing and each project are made once per jest run, whichever test files and workers ask for them: the first
 * asker makes it under a lock directory in the run's directory (test/setup/globalSetup.ts creates it and removes it
 * at the end), the others wait for its result.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository. */
export const ROOT = join(__dirname, '..', '..');

/** The longest a pack or an install may take (a fresh machine downloads every package). */
const MAKE_TIMEOUT_MS = 5 * 60_000;

/** The environment of a child process as a user's shell would give it: no npm script variables, no NODE_OPTIONS. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name) && name !== 'NODE_OPTIONS') env[name] = value;
  return { ...env, ...extra };
}

let fallbackDir: string | undefined;
/** The directory of this jest run (shared by its workers), or one of this process when run without the global setup. */
export function runDir(): string {
  const shared = process.env['CHATFLUX_TEST_RUN_DIR'];
  if (shared !== undefined) return shared;
  return (fallbackDir ??= mkdtempSync(join(tmpdir(), 'chatflux-test-run-')));
}

const made = new Map<string, Promise<unknown>>();

/** Makes `key` once per run across every worker: the first caller runs `make`, the others read its result. */
function once<T>(key: string, make: () => Promise<T>): Promise<T> {
  const known = made.get(key);
  if (known !== undefined) return known as Promise<T>;
  const result = join(runDir(), `${key}.result.json`);
  const promise = (async (): Promise<T> => {
    let mine = true;
    try {
      mkdirSync(join(runDir(), `${key}.lock`));
    } catch {
      mine = false;
    }
    if (mine) {
      const outcome = await make().then(
        (value) => ({ value }),
        (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
      );
      writeFileSync(result, JSON.stringify(outcome));
    } else {
      const deadline = Date.now() + MAKE_TIMEOUT_MS + 60_000;
      while (!existsSync(result)) {
        if (Date.now() > deadline) throw new Error(`${key}: another test worker started making it and never finished`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    const outcome = JSON.parse(readFileSync(result, 'utf8')) as { value?: T; error?: string };
    if (outcome.error !== undefined) throw new Error(`${key} failed: ${outcome.error}`);
    return outcome.value as T;
  })();
  made.set(key, promise);
  return promise;
}

/** The result of `npm pack`. */
export interface PackedTarball {
  /** Absolute path of the .tgz. */
  tarball: string;
  /** The paths of the files it contains. */
  files: string[];
  /** The package name and version it says. */
  name: string;
  version: string;
}

/** Why a child process failed, with the end of its output. */
const failure = (what: string, error: { stdout?: string; stderr?: string; message?: string }): Error =>
  new Error(`${what} failed: ${(error.stderr || error.stdout || error.message || '').trim().split('\n').slice(-15).join('\n')}`);

/** `npm pack` in `cwd` (with `args`), into the run's pack directory; what npm says it packed. */
async function npmPack(cwd: string, args: readonly string[], what: string): Promise<PackedTarball> {
  const destination = join(runDir(), 'pack');
  mkdirSync(destination, { recursive: true });
  const { stdout } = await run('npm', ['pack', '--json', ...args, '--pack-destination', destination], {
    cwd,
    env: userEnv(),
    timeout: MAKE_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw failure(what, error);
  });
  const [result] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; name: string; version: string; files: Array<{ path: string }> }>;
  if (result === undefined) throw new Error(`${what} printed no result: ${stdout}`);
  return { tarball: join(destination, result.filename), files: result.files.map((file) => file.path).sort(), name: result.name, version: result.version };
}

/** `npm pack` of the repository, as `npm publish` would make it (its `prepare` script builds dist/), once per run. */
export function packedTarball(): Promise<PackedTarball> {
  return once('pack', () => npmPack(ROOT, [], 'npm pack'));
}

/**
 * `npm pack` of the gateway package (gateway/), once per run, after the library's: the library's `prepare` builds
 * both packages (scripts/build.mjs), so the gateway is packed with `--ignore-scripts` (its `prepack` would build again,
 * over the files being packed).
 */
export function packedGatewayTarball(): Promise<PackedTarball> {
  return once('pack-gateway', async () => {
    await packedTarball();
    return npmPack(join(ROOT, 'gateway'), ['--ignore-scripts'], 'npm pack (gateway)');
  });
}

/** A new project `dir` (`package.json` named `name`) with `dependencies` installed by npm. */
async function npmInstall(dir: string, name: string, dependencies: readonly string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, version: '1.0.0', private: true }, null, 2)}\n`);
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...dependencies], {
    cwd: dir,
    env: userEnv(),
    timeout: MAKE_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw failure(`npm install ${dependencies.join(' ')}`, error);
  });
}

/**
 * A temporary project with the packed chatflux and `dependencies` (npm specs: `express@4`, `@types/node@20`, or the
 * path of another tarball)
 * installed by npm, once per run under `name` (a name always comes with the same dependencies: FRAMEWORK_PROJECTS).
 *
 * @returns The project's directory.
 */
export function installedProject(name: string, dependencies: readonly string[]): Promise<string> {
  return once(`project-${name}`, async () => {
    const { tarball } = await packedTarball();
    const dir = join(runDir(), 'projects', name);
    await npmInstall(dir, `chatflux-test-${name}`, [tarball, ...dependencies]);
    return dir;
  });
}

/**
 * A temporary project with the packed gateway installed beside the packed library (as the registry would resolve the
 * gateway's `chatflux` dependency), and nothing else; once per run.
 *
 * @returns The project's directory.
 */
export async function installedGatewayProject(): Promise<string> {
  const { tarball } = await packedGatewayTarball();
  return installedProject('gateway', [tarball]);
}

/**
 * A temporary project with only `dependencies` installed by npm (a tool a test runs, not a dependency of ours: Claude
 * Code's native binary), once per run under `name`; npm's cache serves it again next run.
 *
 * @returns The project's directory.
 */
export function installedToolProject(name: string, dependencies: readonly string[]): Promise<string> {
  return once(`tool-${name}`, async () => {
    const dir = join(runDir(), 'tools', name);
    await npmInstall(dir, `chatflux-tool-${name}`, dependencies);
    return dir;
  });
}
