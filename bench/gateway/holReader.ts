/**
 * The reader of the head-of-line phase (bench/gatewayPeer.ts), in a process of its own that does nothing else: it opens
 * the small streams and times the gaps between their reads, so that the gaps it reports are the gateway's and the
 * machine's, not the bench's (whose own process drains the huge answer and runs the phase).
 *
 * IPC, one reply per message: `{type:'open', url, contestant, upstream, model, streams}` → `{type:'opened'}` once every
 * stream has its first byte (or `{type:'failed', message}`); `{type:'start'}` → `{type:'started'}` (a window of gaps
 * begins); `{type:'stop'}` → `{type:'window', largestGapMs, p99GapMs, reads}`; `{type:'close'}` ends the streams and
 * the process.
 */
import { fork } from 'node:child_process';
import { openStreams, PEER_CONTESTANTS, type PeerContestant } from '../gatewayPeer.js';

/** What one window of gaps measured. */
export interface GapWindow {
  /** The largest gap between two consecutive reads of any small stream in the window, ms. */
  largestGapMs: number;
  /** The 99th percentile of all their gaps in the window, ms. */
  p99GapMs: number;
  /** Reads in the window. */
  reads: number;
}

type Request =
  | { type: 'open'; url: string; contestant: PeerContestant['key']; upstream: string; model: string; streams: number }
  | { type: 'start' }
  | { type: 'stop' }
  | { type: 'close' };

/** A running reader process (see the module's comment). */
export interface HolReader {
  open(url: string, contestant: PeerContestant['key'], upstream: string, model: string, streams: number): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<GapWindow>;
  close(): Promise<void>;
}

/** Starts a reader process. */
export function startHolReader(): HolReader {
  const child = fork(__filename, ['hol-reader'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ask = <T>(message: Request): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the reader process exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (reply: T & { type: string; message?: string }) => {
        child.off('exit', onExit);
        if (reply.type === 'failed') reject(new Error(reply.message));
        else resolve(reply);
      });
      child.send(message);
    });
  return {
    open: async (url, contestant, upstream, model, streams) => {
      await ask({ type: 'open', url, contestant, upstream, model, streams });
    },
    start: async () => {
      await ask({ type: 'start' });
    },
    stop: async () => {
      const { largestGapMs, p99GapMs, reads } = await ask<GapWindow>({ type: 'stop' });
      return { largestGapMs, p99GapMs, reads };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.send({ type: 'close' });
      }),
  };
}

function main(): void {
  let last = new Float64Array(0);
  let gaps: number[] | undefined;
  let requests: Array<{ destroy(): void }> = [];
  const reply = (message: object): void => void process.send!(message);
  process.on('message', (message: Request) => {
    if (message.type === 'open') {
      last = new Float64Array(message.streams);
      const contestant = PEER_CONTESTANTS.find((c) => c.key === message.contestant)!;
      openStreams(message.streams, message.url, contestant, message.upstream, message.model, (id, at) => {
        if (gaps !== undefined) gaps.push(at - last[id]!);
        last[id] = at;
      }).then(
        (opened) => {
          requests = opened.requests;
          reply({ type: 'opened' });
        },
        (error: Error) => reply({ type: 'failed', message: error.message }),
      );
    } else if (message.type === 'start') {
      gaps = [];
      reply({ type: 'started' });
    } else if (message.type === 'stop') {
      const now = performance.now();
      const all = gaps ?? [];
      const reads = all.length;
      for (const at of last) all.push(now - at); // a stream still waiting at the window's end
      gaps = undefined;
      all.sort((a, b) => a - b);
      reply({
        type: 'window',
        largestGapMs: all.at(-1) ?? NaN,
        p99GapMs: all[Math.floor(all.length * 0.99)] ?? NaN,
        reads,
      });
    } else {
      for (const req of requests) req.destroy();
      setTimeout(() => process.exit(0), 200);
    }
  });
  process.on('disconnect', () => process.exit(0));
}

if (require.main === module && process.argv[2] === 'hol-reader') main();
