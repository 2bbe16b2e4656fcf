import cluster from 'node:cluster';

/**
 * In a node:cluster worker of the gateway: when the primary goes away (killed outright, `kill -9`: the IPC channel
 * closes), calls `stop` — the worker's graceful shutdown — instead of Node's own reaction, which exits the worker at
 * once (every stream cut mid-answer, no frame, no log line).
 *
 * ```text
 * primary:  ──────── SIGKILL ✕
 * worker:   serving ────────── 'disconnect' ──► stop(reason): grace, then `shutting_down` frames ──► "exits with code 0"
 * ```
 *
 * 1. Node's worker handler (`lib/internal/cluster/child.js`) emits the worker's `'disconnect'`, then calls
 *    `process.exit(0)` unless `cluster.worker.exitedAfterDisconnect` is set; a `process.on('disconnect')` listener
 *    never runs. So the worker's `'disconnect'` listener sets that flag (the disconnect is handled) and calls `stop`.
 * 2. Connections already handed to the worker stay open (their sockets live in the worker): they get the grace, as
 *    on SIGTERM. New ones cannot arrive: the listening socket died with the primary.
 * 3. Nobody is left to report the worker's end (the primary would): the worker writes its exit code itself.
 *
 * @param stop - The graceful shutdown; receives a reason to log (`worker <pid>: primary <pid> exited`).
 * @param write - Where the exit line goes (default stderr).
 * @throws Error when not called in a cluster worker.
 */
export function onPrimaryExit(stop: (reason: string) => void, write = (line: string) => void process.stderr.write(`${line}\n`)): void {
  const worker = cluster.worker;
  if (worker === undefined) throw new Error('onPrimaryExit(stop) works in a node:cluster worker only: call it when cluster.isWorker is true.');
  const primary = process.ppid;
  worker.once('disconnect', () => {
    worker.exitedAfterDisconnect = true; // Node's handler exits at once unless the disconnect was expected
    process.once('exit', (code) => write(`chatflux gateway: worker ${process.pid} exits with code ${code}`));
    stop(`worker ${process.pid}: primary ${primary} exited`);
  });
}
