import cluster, { type Worker } from 'node:cluster';

/** Options of {@link runClusterPrimary}. */
export interface ClusterPrimaryConfig {
  /** How many workers to fork. */
  workers: number;
  /** Where the primary's lines go (default stderr). */
  write?: (line: string) => void;
  /**
   * Variables added to every worker's environment (e.g. one `CHATFLUX_TOKEN_SECRET` for all: a token of
   * `POST /chat/token` issued by one worker must be accepted by the others).
   */
  workerEnv?: Readonly<Record<string, string>>;
}

/**
 * The primary of a clustered gateway (`CHATFLUX_WORKERS`): forks the workers (each runs the gateway on the same port,
 * node:cluster sharing the listening socket), and shuts them down together.
 *
 * ```text
 * primary:  fork ×N ──(all listening: "listening on <url> (N workers)")── SIGTERM/SIGINT ──► each worker ──► exit 0
 * worker:   startGateway ──────────────────────────────────────────────── graceful close(grace) ──► exit 0
 * ```
 *
 * 1. Each worker reports its gateway's URL (`process.send({ chatfluxListening: url })`); it is printed once all N
 *    listen.
 * 2. SIGTERM or SIGINT is forwarded (as SIGTERM) to every worker; each runs its graceful shutdown; the primary exits
 *    0 once all have exited (1 when one failed its shutdown; a worker still starting, which the SIGTERM ends before
 *    it has anything in flight, has not failed).
 * 3. Every worker gets `config.workerEnv` on top of the primary's environment (the gateway program passes one
 *    random `CHATFLUX_TOKEN_SECRET` when none is set, so that the workers accept each other's `EventSource` tokens).
 * 4. A worker that exits before it listens (a port in use, a bad setting) ends them all: exit 1. One that dies later,
 *    outside a shutdown, is replaced.
 * 5. A primary killed outright (`kill -9`) forwards nothing: each worker then shuts down gracefully by itself
 *    (`onPrimaryExit`: the grace, the `shutting_down` frames, its own log lines, exit 0).
 *
 * @param config - The number of workers, where to write, and what the workers' environment adds.
 */
export function runClusterPrimary(config: ClusterPrimaryConfig): void {
  const write = config.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const listening = new Set<number>();
  const live = new Set<Worker>();
  let stopping = false;
  let failed = false;
  let announced = false;

  const fork = (): Worker => {
    const worker = cluster.fork(config.workerEnv);
    live.add(worker);
    // The worker says where its gateway listens (a worker's 'listening' events are not only its gateway's).
    worker.on('message', (message: unknown) => {
      const url = (message as { chatfluxListening?: unknown } | null)?.chatfluxListening;
      if (typeof url !== 'string') return;
      listening.add(worker.id);
      if (announced || stopping || listening.size < config.workers) return;
      announced = true;
      write(`chatflux gateway listening on ${url} (${config.workers} workers, primary ${process.pid})`);
    });
    worker.once('exit', (code, signal) => {
      const wasListening = listening.delete(worker.id);
      live.delete(worker);
      if (stopping) {
        // A worker still starting when the SIGTERM came has no handler yet and dies of it: stopped, not failed.
        if (code !== 0 && signal !== 'SIGTERM') failed = true;
        if (live.size === 0) process.exit(failed ? 1 : 0);
        return;
      }
      if (!wasListening) {
        write(`chatflux gateway: worker ${worker.process.pid} exited before listening (${signal ?? `code ${code}`}); stopping`);
        stop(1);
        return;
      }
      write(`chatflux gateway: worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
      fork();
    });
    return worker;
  };
  const stop = (exitCode = 0): void => {
    if (stopping) return;
    stopping = true;
    if (exitCode !== 0) failed = true;
    if (live.size === 0) process.exit(failed ? 1 : 0);
    for (const worker of live) worker.process.kill('SIGTERM');
  };
  const onSignal = (signal: string): void => {
    if (!stopping) write(`${signal}: shutting down ${config.workers} workers`);
    stop();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  for (let i = 0; i < config.workers; i++) fork();
}
