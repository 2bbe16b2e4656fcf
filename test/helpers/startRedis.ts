/**
 * A real `redis-server` per suite (Debian's, found or installed by the global setup: test/setup/REDIS.ts), on
 * 127.0.0.1 and a free port, with no persistence (no RDB, no AOF, a throwaway directory). Stopped by PID.
 *
 * ```ts
 * let redis: TestRedis;
 * beforeAll(async () => { redis = await startRedis(); });
 * afterAll(() => redis.stop());
 * // redis.url → 'redis://127.0.0.1:PORT'; redis.kill() / redis.restart() for the failure tests
 * ```
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REDIS } from '../setup/REDIS';
import { requireTool } from '../setup/requireTool';

/** A running `redis-server` of a suite. */
export interface TestRedis {
  /** `redis://127.0.0.1:PORT` */
  readonly url: string;
  /** Its TCP port (the same after {@link restart}). */
  readonly port: number;
  /** The server process's PID (a new one after {@link restart}); `undefined` while it is stopped. */
  readonly pid: number | undefined;
  /** Kills the server at once (`SIGKILL`: no goodbye to its clients) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence) and resolves once it accepts connections. */
  restart(): Promise<void>;
  /** Stops it (`SIGTERM`, by PID), waits for its exit and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** Extra settings of {@link startRedis}. */
export interface StartRedisConfig {
  /** `redis-server` arguments appended to the defaults (e.g. `['--maxclients', '50']`). */
  readonly args?: readonly string[];
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/** Starts a `redis-server` and resolves once it logs "Ready to accept connections" (within 10 s, else it is killed). */
export async function startRedis(config: StartRedisConfig = {}): Promise<TestRedis> {
  const executable = requireTool(REDIS);
  const dir = mkdtempSync(join(tmpdir(), 'chatflux-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', ...(config.args ?? [])];
    const started = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        started.kill('SIGKILL');
        reject(new Error(`redis-server did not become ready within 10 s on port ${port}:\n${output.slice(-2000)}`));
      }, 10_000);
      const onData = (data: Buffer): void => {
        output += data.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          started.stdout?.off('data', onData);
          started.stdout?.resume();
          resolve();
        }
      };
      started.stdout?.on('data', onData);
      started.stderr?.on('data', (data: Buffer) => (output += data.toString()));
      started.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited before it was ready (${code ?? signal}):\n${output.slice(-2000)}`));
      });
    });
  };
  const killNow = async (signal: NodeJS.Signals): Promise<void> => {
    const running = child;
    child = undefined;
    if (running?.pid === undefined || running.exitCode !== null || running.signalCode !== null) return;
    process.kill(running.pid, signal);
    await exited(running);
  };

  await launch();
  let stopped = false;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid;
    },
    kill: () => killNow('SIGKILL'),
    restart: async () => {
      await killNow('SIGKILL');
      await launch();
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await killNow('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
