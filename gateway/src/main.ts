/**
 * The gateway program: `npx chatflux-gateway` (bin/chatflux-gateway.cjs runs the compiled file), `npm start` in a
 * clone. Reads the configuration (a YAML file with `--config FILE` or `CHATFLUX_CONFIG`, the environment over it), prints it (without secrets), starts the gateway, and shuts it
 * down gracefully on SIGTERM / SIGINT: requests in flight get `CHATFLUX_SHUTDOWN_GRACE_MS` (10 s), then a 503 with
 * `Retry-After`, or the in-band `shutting_down` error frame on a stream already committed; then it exits 0.
 *
 * `--help` prints the settings it would start with, `--version` its version, `--check-config` the resolved
 * configuration, and it exits 0 (`answerCommandLine`; `--check-config` exits 1 with the error).
 * A bad setting, an unknown argument, a port in use or a missing peer dependency: one line on stderr naming it, and
 * exit code 1.
 * Started by npm (`npx`, `npm start`), it also shuts down gracefully when the process that started it exits.
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { ConfigError, createMemoryRateLimitStore, isConfigError } from 'chatflux';
import { answerCommandLine } from './answerCommandLine.js';
import { describeGatewayConfig } from './describeGatewayConfig.js';
import { GATEWAY_DEFAULTS } from './GATEWAY_DEFAULTS.js';
import { loadGatewayConfig } from './loadGatewayConfig.js';
import { onPrimaryExit } from './onPrimaryExit.js';
import { runClusterPrimary } from './runClusterPrimary.js';
import { servePrimaryRateLimitStore } from './primaryRateLimitStore.js';
import { serveClusterMetrics } from './clusterMetrics.js';
import { hostname } from 'node:os';

/** The gateway's own module, or the one line to print when a peer dependency it needs is not installed. */
async function loadStartGateway(): Promise<typeof import('./startGateway.js').startGateway> {
  try {
    return (await import('./startGateway.js')).startGateway;
  } catch (error) {
    const missing = /Cannot find (?:module|package) '([^']+)'/.exec((error as Error).message)?.[1];
    if ((error as NodeJS.ErrnoException).code?.startsWith('ERR_MODULE_NOT_FOUND') || (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      if (missing !== undefined && !missing.startsWith('.') && !missing.startsWith('/')) {
        throw new ConfigError(`the gateway needs the package "${missing}", which is not installed: npm install ${missing}`, { cause: error });
      }
    }
    throw error;
  }
}

/**
 * Keeps a SIGTERM / SIGINT that comes while the program is still loading (Express, the telemetry SDK: a second or
 * two), before its real handlers exist: Node's default would kill it (exit 143, or a primary dying without its
 * workers). Returns the hand-over, called once the real handlers are set: it delivers the kept signal to them. A
 * second signal while loading ends the process at once.
 */
function holdEarlySignals(): () => void {
  let kept: NodeJS.Signals | undefined;
  const keep = (signal: NodeJS.Signals): void => {
    if (kept !== undefined) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    kept = signal;
  };
  process.on('SIGTERM', keep);
  process.on('SIGINT', keep);
  return () => {
    process.off('SIGTERM', keep);
    process.off('SIGINT', keep);
    if (kept !== undefined) process.kill(process.pid, kept);
  };
}

async function main(): Promise<void> {
  const answer = answerCommandLine(process.argv.slice(2), process.env); // --help, --version, --check-config: nothing starts
  if (answer.exitCode !== undefined) {
    if (answer.stdout !== undefined) process.stdout.write(answer.stdout);
    if (answer.stderr !== undefined) process.stderr.write(answer.stderr);
    process.exitCode = answer.exitCode;
    return;
  }
  const handOverSignals = holdEarlySignals();
  const config = loadGatewayConfig(process.env, answer.configFile === undefined ? {} : { configFile: answer.configFile });
  const workers = config.workers ?? 1;
  const startGateway = await loadStartGateway();
  if (cluster.isPrimary) for (const line of describeGatewayConfig(config)) process.stderr.write(`${line}\n`);
  // CHATFLUX_WORKERS: the primary only forks and signals; each worker runs the gateway on the shared port.
  // The workers share one token secret: a token issued by one must pass on the others (the balancer picks any).
  if (workers > 1 && cluster.isPrimary) {
    const workerEnv: Record<string, string> = config.tokenSecret === undefined ? { CHATFLUX_TOKEN_SECRET: randomBytes(32).toString('base64url') } : {};
    // One instance id for all the workers (their /metrics answers for the instance): the primary's, by default.
    workerEnv['CHATFLUX_INSTANCE_ID'] = config.instanceId ?? `${hostname()}:${process.pid}`;
    serveClusterMetrics();
    // Limits without Redis: the primary holds them and the workers ask it (over the cluster's IPC), so that they hold
    // for the gateway, not once per worker (a key limited to 2 streams would run 2 on each).
    if (config.limits !== undefined && config.redisUrl === undefined) servePrimaryRateLimitStore(createMemoryRateLimitStore());
    runClusterPrimary({ workers, workerEnv });
    return handOverSignals();
  }
  const worker = cluster.isWorker;
  const workerId = worker && config.debugWorkerHeader === true ? cluster.worker?.id : undefined; // an index, never a PID
  const gateway = await startGateway(config, workerId === undefined ? {} : { responseHeaders: { 'X-Chatflux-Worker': String(workerId) } });
  const graceMs = config.shutdownGraceMs ?? GATEWAY_DEFAULTS.process.shutdownGraceMs;
  if (!worker) process.stderr.write(`chatflux gateway listening on ${gateway.url} (open it in a browser)\n`);
  else process.send?.({ chatfluxListening: gateway.url });
  let stopping = false;
  // A terminal's Ctrl-C reaches both `npm start` and the gateway, and npm forwards it again: one shutdown for all.
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: shutting down (grace ${graceMs} ms)\n`);
    gateway.close(graceMs).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`chatflux gateway: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  handOverSignals();
  // A worker whose primary is gone (killed outright) shuts down gracefully rather than serve on, orphaned, or die at once.
  if (worker) onPrimaryExit(stop);
  // `npx chatflux-gateway` runs it under npm's `sh -c`, which dies of the SIGTERM npm passes on without passing it
  // further: when the process that started it goes away, shut down as on SIGTERM rather than serve on, orphaned.
  if (process.env['npm_command'] !== undefined) {
    const parent = process.ppid;
    setInterval(() => process.ppid !== parent && stop('parent process exited'), 100).unref();
  }
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`chatflux gateway failed to start: ${isConfigError(error) ? message : message.split('\n')[0]}\n`);
  process.exit(1);
});
