/**
 * The processes of the gateway load bench, one role per forked child (`--import tsx --expose-gc`):
 *
 * - `upstream`: a tiny OpenAI-compatible SSE server on loopback. The request's `model` picks the answer:
 *   `bench-2000` (2,000 text deltas written back-to-back, with one `end`), `bench-ds-2000` (2,000 DeepSeek-shaped deltas,
 *   562 KB — the answer of Performance III — written at once, with one `end`), `bench-ds-2000-streamed` (the same bytes,
 *   one `write` per SSE event as a provider flushes each event, waiting for `'drain'` when a write returns false),
 *   `bench-slow` (a delta every second, for at most 120 s),
 *   `bench-20mb` (~20 MB of deltas, written with backpressure: it stops when the reader stops), `bench-hold` (a delta
 *   now, then one every 5 s for at most 600 s: a held stream), `bench-tick` (a delta every 10 ms, all such streams on
 *   one timer, for at most 120 s), `bench-big-tool-<bytes>` (one tool call of that many bytes of arguments) and
 *   `bench-big-text-<deltas>` (that many text deltas), both pre-built once and written back to back.
 * - `raw`: a raw pipe proxy (undici request → `pipeline` into the response).
 * - `floor`: a minimal parse-and-re-encode proxy: TextDecoder, split on blank lines, JSON.parse, write the spec's
 *   `/chat/sse` frames, with backpressure (pause the upstream body until `'drain'`).
 * - `chatflux`: the chatflux gateway (`startGateway`), request logging off; `BENCH_CHATFLUX_ENV` (JSON) adds to its
 *   `CHATFLUX_*` variables.
 * - `portkey`: the Portkey AI Gateway's installed `build/start-server.js` (argv[4], see portkey.ts), run in this
 *   process on a free port (`--headless`), so that its CPU and RSS are this process's.
 *
 * IPC: the child sends `{type:'ready', url}` (or `{type:'unavailable', message}`); it answers `{type:'stats'}` with its
 * RSS and CPU time (after a GC when `gc: true`) and the upstream's counters; `{type:'close'}` ends it.
 */
import cluster, { type Worker } from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { connect, createServer as createNetServer } from 'node:net';
import { pipeline } from 'node:stream';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { chatfluxDir } from '../lib/chatfluxDir.js';
import { DEEPSEEK_SHAPE, encodeEvents, textEvents, toolArguments, toolEvents } from '../workloads.js';

export type Role = 'upstream' | 'raw' | 'floor' | 'chatflux' | 'chatflux2' | 'portkey';

export interface Stats {
  type: 'stats';
  rssMb: number;
  /** V8 heap in use + external memory (Buffers), MB: less noisy than RSS. */
  heapMb: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  /** upstream only: `bench-2000` and `bench-ds-2000*` responses written completely. */
  completed: number;
  /** upstream only: bytes written to `bench-20mb` responses. */
  bigBytes: number;
  /**
   * The longest and the 99th-percentile delay of this process's event loop since the last `stats` call, ms
   * (`monitorEventLoopDelay`, 1 ms resolution): how long the process held its own loop (or was not scheduled).
   */
  loopDelayMaxMs?: number;
  loopDelayP99Ms?: number;
}

/** This process's event-loop delay, read and reset at each `stats` call. */
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
function loopDelayStats(): Pick<Stats, 'loopDelayMaxMs' | 'loopDelayP99Ms'> {
  const figures = { loopDelayMaxMs: loopDelay.max / 1e6, loopDelayP99Ms: loopDelay.percentile(99) / 1e6 };
  loopDelay.reset();
  return figures;
}

export const STREAM_DELTAS = 2000;

/** The 2,000-delta answer: its bytes and its text (what every proxy must deliver). */
export function answer2000(): { body: Buffer; text: string } {
  const text = { text: '' };
  const { bytes } = encodeEvents(() => textEvents(STREAM_DELTAS, 7, text));
  return { body: bytes, text: text.text };
}

/** How the upstream writes the Performance III answer: one write per SSE event (as a provider does), or all at once. */
export type UpstreamMode = 'streamed' | 'atOnce';

/** The model that selects the Performance III answer written in `mode`. */
export const dsModel = (mode: UpstreamMode): string =>
  mode === 'streamed' ? 'bench-ds-2000-streamed' : 'bench-ds-2000';

/** The Performance III answer: 2,000 DeepSeek-shaped deltas (562 KB), one view per SSE event, and its text. */
export function answerDs2000(): { body: Buffer; events: Uint8Array[]; text: string } {
  const text = { text: '' };
  const { bytes, perEvent } = encodeEvents(() => textEvents(STREAM_DELTAS, 7, text, DEEPSEEK_SHAPE));
  return { body: bytes, events: perEvent, text: text.text };
}

/**
 * Writes `events` one `write` each (each its own chunk on the wire, as a provider flushes each event), as fast as the
 * socket takes them: a write that returns false waits for `'drain'`; then ends the response.
 */
function writeEach(res: ServerResponse, events: Uint8Array[]): void {
  let i = 0;
  const pump = (): void => {
    while (i < events.length) {
      if (!res.write(events[i++]!)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('close', () => res.removeListener('drain', pump));
  pump();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** The bytes of a `bench-big-tool-<bytes>` or `bench-big-text-<deltas>` answer (built once per model). */
const bigAnswers = new Map<string, Buffer>();
export function bigAnswer(model: string): Buffer {
  let bytes = bigAnswers.get(model);
  if (bytes === undefined) {
    const size = Number(model.slice(model.lastIndexOf('-') + 1));
    bytes = encodeEvents(() =>
      model.startsWith('bench-big-tool-') ? toolEvents(toolArguments(size), 'search_documents') : textEvents(size, 5),
    ).bytes;
    bigAnswers.set(model, bytes);
  }
  return bytes;
}

function startUpstream(counters: { completed: number; bigBytes: number }) {
  const { body } = answer2000();
  const ds = answerDs2000();
  const slowEvents = [...textEvents(120, 8)];
  const tickEvent = slowEvents[1]!;
  const ticking = new Set<ServerResponse>();
  let ticker: NodeJS.Timeout | undefined;
  return createServer((req, res) => {
    void readBody(req).then((raw) => {
      const model = (JSON.parse(raw.toString() || '{}') as { model?: string }).model;
      res.writeHead(200, SSE_HEADERS);
      if (model === 'bench-slow') {
        // Role + first delta now, then one delta a second: an "idle" stream as a long, slow answer looks to a proxy.
        let i = 0;
        res.write(slowEvents[i++]! + slowEvents[i++]!);
        const timer = setInterval(() => {
          res.write(slowEvents[i++]!);
          if (i >= slowEvents.length) {
            clearInterval(timer);
            res.end();
          }
        }, 1000);
        res.on('close', () => clearInterval(timer));
      } else if (model === 'bench-20mb') {
        const events = textEvents(100_000, 9);
        const pump = (): void => {
          for (let next = events.next(); !next.done; next = events.next()) {
            counters.bigBytes += Buffer.byteLength(next.value);
            if (!res.write(next.value)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else if (model === 'bench-hold') {
        let i = 0;
        res.write(slowEvents[i++]! + slowEvents[i++]!);
        const timer = setInterval(() => {
          res.write(slowEvents[(i++ % 100) + 1]!);
          if (i >= 120) {
            clearInterval(timer);
            res.end(`${slowEvents.at(-2)!}${slowEvents.at(-1)!}`);
          }
        }, 5000);
        res.on('close', () => clearInterval(timer));
      } else if (model === 'bench-tick') {
        res.write(slowEvents[0]!);
        ticking.add(res);
        if (ticker === undefined) {
          ticker = setInterval(() => {
            for (const stream of ticking) stream.write(tickEvent);
          }, 10);
        }
        const end = setTimeout(() => res.end(`${slowEvents.at(-2)!}${slowEvents.at(-1)!}`), 120_000);
        res.on('close', () => {
          clearTimeout(end);
          ticking.delete(res);
          if (ticking.size === 0) {
            clearInterval(ticker);
            ticker = undefined;
          }
        });
      } else if (model === dsModel('streamed')) {
        res.on('finish', () => counters.completed++);
        writeEach(res, ds.events);
      } else if (model === dsModel('atOnce')) {
        res.on('finish', () => counters.completed++);
        res.end(ds.body);
      } else if (model?.startsWith('bench-big-')) {
        res.end(bigAnswer(model));
      } else {
        res.on('finish', () => counters.completed++);
        res.end(body);
      }
    });
  });
}

/**
 * A proxy server that forwards each request's body to the upstream (aborted when the client goes away) and hands the
 * upstream response to `serve`; a failure before the headers is a bare 502.
 */
function startForwardingProxy(upstream: string, serve: (up: Dispatcher.ResponseData, res: ServerResponse) => void) {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    void readBody(req).then(async (raw) => {
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      try {
        const up = await request(`${upstream}/v1/chat/completions`, {
          method: 'POST',
          body: raw,
          headers: { 'content-type': 'application/json' },
          signal: controller.signal,
        });
        serve(up, res);
      } catch {
        if (!res.headersSent) res.writeHead(502).end();
      }
    });
  });
}

function startRawProxy(upstream: string) {
  return startForwardingProxy(upstream, (up, res) => {
    res.writeHead(up.statusCode, SSE_HEADERS);
    pipeline(up.body, res, () => undefined);
  });
}

/** The floor proxy: the least work that turns the upstream SSE into the spec's `/chat/sse` frames. */
function startFloorProxy(upstream: string) {
  return startForwardingProxy(upstream, (up, res) => {
    res.writeHead(200, { ...SSE_HEADERS, 'x-accel-buffering': 'no' });
    const decoder = new TextDecoder();
    let buffer = '';
    let index = 0;
    up.body.on('data', (chunk: Buffer) => {
      buffer += decoder.decode(chunk, { stream: true });
      let start = 0;
      let end: number;
      let out = '';
      while ((end = buffer.indexOf('\n\n', start)) !== -1) {
        const line = buffer.slice(start, end);
        start = end + 2;
        if (!line.startsWith('data: ')) continue;
        const data = line.slice(6);
        if (data === '[DONE]') {
          out += `data: ${JSON.stringify({ message: { role: 'assistant', content: '' }, done: true, index: index++ })}\n\ndata: [DONE]\n\n`;
          continue;
        }
        const content = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: string | null } }> }).choices?.[0]
          ?.delta?.content;
        if (content) {
          out += `data: ${JSON.stringify({ message: { role: 'assistant', content }, done: false, index: index++ })}\n\n`;
        }
      }
      buffer = buffer.slice(start);
      if (out !== '' && !res.write(out)) {
        up.body.pause();
        res.once('drain', () => up.body.resume());
      }
    });
    up.body.on('end', () => res.end());
    up.body.on('error', () => res.destroy());
  });
}

/** A port free on 127.0.0.1 right now (for a server that takes its port on the command line). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves once `port` accepts a connection (tried every 50 ms, for at most 10 s). */
async function listening(port: number): Promise<void> {
  for (let tries = 0; ; tries++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (tries >= 200) throw new Error(`nothing listens on port ${port} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function listen(server: ReturnType<typeof createServer>): Promise<string> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * `chatflux2`: a node:cluster primary with two workers, each running the `chatflux` role on the one port (as
 * `CHATFLUX_WORKERS=2` runs the gateway program). Stats sum the primary's CPU and the workers'.
 */
async function clusterPrimary(workers: number): Promise<void> {
  const forked: Worker[] = [];
  for (let i = 0; i < workers; i++) forked.push(cluster.fork());
  const ask = (worker: Worker, message: unknown): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      worker.once('message', (reply: Record<string, unknown>) => resolve(reply));
      worker.send(message as object);
    });
  const ready = await Promise.all(
    forked.map(
      (worker) =>
        new Promise<{ type: string; url?: string; message?: string }>((resolve) => {
          worker.once('message', resolve);
          worker.once('exit', (code) => resolve({ type: 'unavailable', message: `worker exited with ${code}` }));
        }),
    ),
  );
  const failed = ready.find((message) => message.type !== 'ready');
  if (failed !== undefined) {
    for (const worker of forked) worker.kill();
    process.send!(failed);
    return;
  }
  process.on('message', (message: { type: string; gc?: boolean }) => {
    if (message.type === 'stats') {
      void Promise.all(forked.map((worker) => ask(worker, message) as Promise<unknown> as Promise<Stats>)).then(
        (all) => {
          const cpu = process.cpuUsage();
          const memory = process.memoryUsage();
          const stats: Stats = {
            type: 'stats',
            rssMb: memory.rss / 1048576 + all.reduce((sum, s) => sum + s.rssMb, 0),
            heapMb: (memory.heapUsed + memory.external) / 1048576 + all.reduce((sum, s) => sum + s.heapMb, 0),
            cpuUserMs: cpu.user / 1000 + all.reduce((sum, s) => sum + s.cpuUserMs, 0),
            cpuSystemMs: cpu.system / 1000 + all.reduce((sum, s) => sum + s.cpuSystemMs, 0),
            completed: 0,
            bigBytes: 0,
          };
          process.send!(stats);
        },
      );
    } else if (message.type === 'close') {
      let left = forked.length;
      for (const worker of forked) {
        worker.once('exit', () => --left === 0 && process.exit(0));
        worker.send({ type: 'close' });
      }
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ type: 'ready', url: ready[0]!.url });
}

async function main(): Promise<void> {
  const role = process.argv[2] as Role;
  const upstream = process.argv[3] ?? '';
  if (role === 'chatflux2' && cluster.isPrimary) return clusterPrimary(2);
  const counters = { completed: 0, bigBytes: 0 };
  let close: () => Promise<void>;
  let url: string;
  try {
    if (role === 'chatflux' || role === 'chatflux2') {
      const [{ startGateway }, { loadGatewayConfig }] = await Promise.all([
        import(join(chatfluxDir(), 'gateway/startGateway.js')) as Promise<
          typeof import('../../gateway/src/startGateway.js')
        >,
        import(join(chatfluxDir(), 'gateway/loadGatewayConfig.js')) as Promise<
          typeof import('../../gateway/src/loadGatewayConfig.js')
        >,
      ]);
      const config = loadGatewayConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        CHATFLUX_PROVIDER: 'openai-compatible',
        CHATFLUX_BASE_URL: `${upstream}/v1`,
        CHATFLUX_API_KEY: 'sk-bench',
        CHATFLUX_MODEL: 'bench-2000',
        // The load comes from one address and measures up to 1000 concurrent streams: no per-client limit, and the
        // pool's queue as before (128 connections, no wait limit), so the figures stay comparable.
        CHATFLUX_MAX_CONCURRENT_PER_CLIENT: '0',
        CHATFLUX_CONNECTION_WAIT_MS: '86400000',
        ...(JSON.parse(process.env['BENCH_CHATFLUX_ENV'] ?? '{}') as Record<string, string>),
      });
      const gateway = await startGateway(config, { log: () => undefined });
      url = gateway.url;
      close = () => gateway.close(100);
    } else if (role === 'portkey') {
      const port = await freePort();
      // Its server reads `--port=` and `--headless` from process.argv; `import()` resolves once it listens and has
      // shown its 1 s start-up animation (on the ignored stdout).
      process.argv.push(`--port=${port}`, '--headless');
      await (new Function('url', 'return import(url)') as (url: string) => Promise<unknown>)(
        pathToFileURL(process.argv[4]!).href,
      );
      await listening(port);
      url = `http://127.0.0.1:${port}`;
      close = () => Promise.resolve();
    } else {
      const server =
        role === 'upstream'
          ? startUpstream(counters)
          : role === 'raw'
            ? startRawProxy(upstream)
            : startFloorProxy(upstream);
      url = await listen(server);
      close = () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        });
    }
  } catch (error) {
    process.send!({
      type: 'unavailable',
      message: error instanceof Error ? error.message.split('\n')[0] : String(error),
    });
    return;
  }
  process.on('message', (message: { type: string; gc?: boolean }) => {
    if (message.type === 'stats') {
      if (message.gc) (globalThis as { gc?: () => void }).gc?.();
      const cpu = process.cpuUsage();
      const memory = process.memoryUsage();
      const stats: Stats = {
        type: 'stats',
        rssMb: memory.rss / 1048576,
        heapMb: (memory.heapUsed + memory.external) / 1048576,
        cpuUserMs: cpu.user / 1000,
        cpuSystemMs: cpu.system / 1000,
        ...counters,
        ...loopDelayStats(),
      };
      process.send!(stats);
    } else if (message.type === 'close') {
      void close().finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ type: 'ready', url });
}

if (require.main === module) void main();
