import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { ROOT, userEnv } from './packedPackage';
import { waitFor } from './streamSources';

/** A spawned program: the process, its stderr so far, and how it ended. */
export interface SpawnedProgram {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** The gateway program from the sources, as `npm start` runs it (`node --import tsx gateway/src/main.ts`). */
export const GATEWAY_PROGRAM = { command: process.execPath, args: ['--import', 'tsx', 'gateway/src/main.ts'], cwd: ROOT };

/**
 * Spawns `command` as a user's shell would (no npm variables), on 127.0.0.1 and an ephemeral port with the emulator's
 * scenarios on, `env` on top; collects its stderr. Does not wait for anything.
 */
export function spawnProgram(
  env: Record<string, string> = {},
  { command, args, cwd } = GATEWAY_PROGRAM,
): SpawnedProgram {
  const child = spawn(command, args, {
    cwd,
    env: userEnv({ PORT: '0', HOST: '127.0.0.1', CHATFLUX_EMULATOR_SCENARIOS: 'true', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdout?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, stderr: () => stderr, exited };
}

/** {@link spawnProgram}, resolved once stderr matches `ready` (the gateway says where it listens): with that URL. */
export async function startProgram(
  env: Record<string, string> = {},
  program = GATEWAY_PROGRAM,
  ready = /listening on http:\/\/\S+/,
): Promise<SpawnedProgram & { url: string }> {
  const started = spawnProgram(env, program);
  await waitFor(() => ready.test(started.stderr()) || started.child.exitCode !== null, 40_000).catch(() => undefined);
  const url = /listening on (http:\/\/\S+)/.exec(started.stderr())?.[1];
  if (url === undefined) {
    started.child.kill('SIGKILL'); // not left running when it never said where it listens
    throw new Error(`${program.command} ${program.args.join(' ')} did not start: ${started.stderr()}`);
  }
  return { ...started, url };
}

/** Ends every program of `programs` still running (SIGTERM: its graceful shutdown) and waits for each to exit. */
export async function stopPrograms(programs: readonly SpawnedProgram[]): Promise<void> {
  for (const program of programs) {
    if (program.child.exitCode === null && program.child.signalCode === null) program.child.kill('SIGTERM');
    await program.exited;
  }
}

/** Whether nothing listens on `port` of 127.0.0.1 any more. */
export const portRefuses = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

/** Every process whose parent chain leads to `root` (from /proc), `root` included. */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree;
}

/** Whether process `pid` still runs (a zombie, exited but not yet reaped, does not). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '); // a zombie has exited
  } catch {
    return false;
  }
};
