import { spawnSync } from 'node:child_process';
import type { DebianTool } from './DebianTool';
import { findTool } from './findTool';

/** The outcome of {@link ensureDebianTool}: the executable, or the one line that says what to install. */
export type EnsuredTool = { path: string } | { missing: string };

const hasAptAsRoot = (): boolean => process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;

/** Runs apt-get without a terminal or questions (CI=true, no stdin); returns why it failed (its last line), if it did. */
function aptGet(args: string[]): string | undefined {
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 15 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status === 0) return undefined;
  const last = `${result.stderr ?? ''}\n${result.stdout ?? ''}`.trim().split('\n').filter((line) => line.trim() !== '').at(-1);
  return `apt-get ${args.join(' ')}: ${result.error?.message ?? last ?? `exit ${result.status ?? result.signal}`}`;
}

/**
 * Finds the tool (see {@link findTool}); where there is none and the machine has apt-get and runs as root, installs
 * its Debian package (`apt-get update`, then `apt-get install -y`) and looks again. Never throws.
 *
 * @returns The executable's path, or `missing`: one line naming what to install (and why it was not installed).
 */
export function ensureDebianTool(tool: DebianTool): EnsuredTool {
  const found = findTool(tool);
  if (found !== undefined) return { path: found };
  const hint = `${tool.neededBy} needs ${tool.name}: install it (Debian/Ubuntu: apt-get install ${tool.debianPackage}) or set ${tool.envVar} to its executable`;
  if (!hasAptAsRoot()) return { missing: `${hint} (not installed automatically: this machine has no apt-get, or the tests do not run as root).` };
  process.stderr.write(`chatflux tests: ${tool.name} not found; installing Debian's ${tool.debianPackage} with apt-get (once)…\n`);
  const started = Date.now();
  const failed = aptGet(['update', '-q']) ?? aptGet(['install', '-y', '-q', tool.debianPackage]);
  const installed = findTool(tool);
  if (installed !== undefined) {
    process.stderr.write(`chatflux tests: installed ${tool.debianPackage} (${installed}) in ${Math.round((Date.now() - started) / 1000)} s\n`);
    return { path: installed };
  }
  return { missing: `${hint} (installing it with apt-get failed: ${failed ?? `no ${tool.commands[0]} after the install`}).` };
}
