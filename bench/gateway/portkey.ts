/**
 * The peer gateway of the bench: the Portkey AI Gateway (`@portkey-ai/gateway`, TypeScript on Hono), installed from
 * the npm registry into a cache folder outside the repository (none of its code is committed), with every runtime
 * dependency pinned to the version of its own lockfile at its release tag (portkeyPins.json, read from
 * github.com/Portkey-AI/gateway): with newer dependency versions it does not stream correctly (its issue 1389).
 *
 * `installPortkey` is called by the bench's parent process (once; the install is reused while the pins are the same);
 * the `portkey` role of servers.ts then runs the installed `build/start-server.js` inside a bench server process.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PINS from './portkeyPins.json';

/** The package and version the bench measures. */
export const PORTKEY = `${PINS.package}@${PINS.version}`;

/** The cache folder of the install: outside the repository, one per set of pins. */
export function portkeyDir(): string {
  const hash = createHash('sha256').update(JSON.stringify(PINS)).digest('hex').slice(0, 12);
  return process.env['BENCH_PORTKEY_DIR'] ?? join(tmpdir(), 'chatflux-bench', `portkey-${PINS.version}-${hash}`);
}

/** The server script of an install in `dir`. */
export const portkeyServer = (dir: string): string =>
  join(dir, 'node_modules', ...PINS.package.split('/'), 'build', 'start-server.js');

/** The packages whose installed version differs from the lockfile's pin (`name: installed ≠ pinned`). */
function unpinned(dir: string): string[] {
  const out: string[] = [];
  for (const [name, version] of Object.entries(PINS.pins)) {
    const manifest = join(dir, 'node_modules', ...name.split('/'), 'package.json');
    if (!existsSync(manifest)) continue; // an optional dependency the platform does not need
    const installed = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    if (installed !== version) out.push(`${name}: ${installed} ≠ ${version}`);
  }
  return out;
}

/**
 * Installs {@link PORTKEY} with its lockfile's dependency versions (npm `overrides`) into {@link portkeyDir}, unless it
 * is there already. Returns the path of its server script, or why it is not available.
 */
export function installPortkey(log: (line: string) => void): { server: string } | { unavailable: string } {
  const dir = portkeyDir();
  const server = portkeyServer(dir);
  const marker = join(dir, 'installed.json');
  if (existsSync(server) && existsSync(marker)) return { server };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'chatflux-bench-portkey',
        private: true,
        description: `${PORTKEY}, dependencies pinned to its lockfile (${PINS.source})`,
        dependencies: { [PINS.package]: PINS.version },
        overrides: PINS.pins,
      },
      null,
      2,
    )}\n`,
  );
  log(`  installing ${PORTKEY} (dependencies pinned to its lockfile) into ${dir} …`);
  try {
    // --ignore-scripts: its only install script is `patch-package`, applied below by hand (its published package
    // has no patches folder for it to find).
    execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=error'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim().split('\n').slice(-3).join(' ') ?? '';
    return { unavailable: `npm install ${PORTKEY} failed: ${stderr || (error as Error).message}` };
  }
  if (!existsSync(server)) return { unavailable: `npm installed ${PORTKEY} without ${server}` };
  // The one patch of its repository that touches runtime code (patches/async-retry+1.3.3.patch): `retry` hands its
  // operation to the callback as a third argument.
  const retry = join(dir, 'node_modules', 'async-retry', 'lib', 'index.js');
  if (existsSync(retry)) {
    const source = readFileSync(retry, 'utf8');
    if (source.includes('val = fn(bail, num);'))
      writeFileSync(retry, source.replace('val = fn(bail, num);', 'val = fn(bail, num, op);'));
  }
  const off = unpinned(dir);
  if (off.length > 0) return { unavailable: `npm did not install the lockfile's versions: ${off.join(', ')}` };
  writeFileSync(marker, `${JSON.stringify({ package: PORTKEY, at: new Date().toISOString() })}\n`);
  return { server };
}
