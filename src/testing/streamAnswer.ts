import type { ServerResponse } from 'node:http';
import { createSeededRandom } from './createSeededRandom.js';
import type { EmulatorDialect } from './EmulatorDialect.js';
import type { EmulatorScenario } from './parseScenario.js';
import { dialectError } from './dialectError.js';

/** Bytes written between two yields to the event loop (see `streamAnswer`). */
const YIELD_EVERY_BYTES = 64 * 1024;

/** What the writer reports while it streams (the emulator's request record). */
export interface StreamProgress {
  /** SSE frames written so far. */
  framesWritten: number;
  /** Body bytes written so far. */
  bytesWritten: number;
  /** True while the emulator waits for the client to read (backpressure). */
  waitingForDrain: boolean;
  /** Set by the writer when it closed the connection on purpose (a fault), so it is not counted as a client abort. */
  closedByFault: boolean;
}

/** Everything {@link streamAnswer} needs. */
export interface StreamAnswerContext {
  res: ServerResponse;
  dialect: EmulatorDialect;
  scenario: EmulatorScenario;
  /** The `data:` payloads, lazily. */
  frames: Iterable<string>;
  /** Start of a chunk object (`{"id":…,"model":…,`) for injected events. */
  chunkHead: string;
  /** Seed of the random network splits. */
  seed: number;
  /** Aborted when the client goes away: stop at once. */
  signal: AbortSignal;
  progress: StreamProgress;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

/**
 * Writes an SSE answer with the scenario's faults, honouring backpressure and cancellation.
 *
 * 1. Headers first (`text/event-stream`), then the queue phase (DeepSeek: exactly `ceil(queueMs / keepAliveMs)`
 *    `: keep-alive` comments, each after a sleep of `keepAliveMs`, the last after the remainder — counted, not read off
 *    the clock, so the bytes never depend on timing), then one `data:` event per frame, paced, then `data: [DONE]`
 *    (left out with `scenario.noDone`).
 * 2. A fault placed "after k events" fires after k events, or at the end of the answer (after its last event, before
 *    `[DONE]`) when the answer has fewer: it is never silently skipped.
 * 3. `res.write()` returning `false` suspends the generation until `'drain'`: a slow reader pauses the emulator,
 *    and frames are produced one at a time, so memory stays bounded.
 * 4. Every 64 KiB written it yields to the event loop (`setImmediate`), even while the socket takes everything (a
 *    loopback socket with large buffers can take megabytes without a `'drain'`): an emulator in the process of the
 *    server it serves does not block that server's other requests while it fills the buffers of a client that does
 *    not read.
 * 5. When `signal` aborts (the client closed), every timer is cleared and nothing more is written.
 *
 * @param ctx - Response, frames, scenario and progress record.
 * @returns Resolves when the answer is written, cut by a fault, or abandoned by the client.
 */
export async function streamAnswer(ctx: StreamAnswerContext): Promise<void> {
  const { res, scenario, signal, progress } = ctx;
  const eol = scenario.crlf ? '\r\n' : '\n';
  const data = scenario.noSpace ? 'data:' : 'data: ';
  const rng = createSeededRandom(ctx.seed);
  const offsets = Array.isArray(scenario.split) ? [...scenario.split].sort((a, b) => a - b) : [];
  let nextCut = 0;
  const cutAfter = (offset: number): number => {
    const split = scenario.split;
    if (split === 'random') return offset + 1 + rng.int(rng.next() < 0.5 ? 4 : 96);
    if (typeof split === 'number') return (Math.floor(offset / split) + 1) * split;
    return offsets.find((o) => o > offset) ?? Infinity;
  };

  const drain = (): Promise<void> =>
    new Promise((resolve) => {
      progress.waitingForDrain = true;
      const done = (): void => {
        progress.waitingForDrain = false;
        res.off('drain', done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      res.on('drain', done);
      signal.addEventListener('abort', done);
    });
  let sinceYield = 0;
  const put = async (chunk: Buffer): Promise<void> => {
    if (signal.aborted || res.destroyed) return;
    progress.bytesWritten += chunk.length;
    sinceYield += chunk.length;
    if (!res.write(chunk)) await drain();
    else if (sinceYield >= YIELD_EVERY_BYTES) await new Promise<void>((resolve) => setImmediate(resolve));
    if (sinceYield >= YIELD_EVERY_BYTES) sinceYield = 0;
  };
  const write = async (text: string | Buffer): Promise<void> => {
    let buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    if (scenario.split === undefined) return put(buf);
    while (buf.length > 0 && !signal.aborted) {
      const start = progress.bytesWritten;
      if (nextCut <= start) nextCut = cutAfter(start);
      const size = Math.min(buf.length, nextCut - start);
      await put(buf.subarray(0, size));
      buf = buf.subarray(size);
      if (progress.bytesWritten >= nextCut) await sleep(scenario.splitDelayMs ?? 1, signal);
    }
  };
  // `error-message` / `error-type` apply to the in-band error too (as to an HTTP error body).
  const errorJson = (): string =>
    dialectError(ctx.dialect, 500, {
      ...(scenario.errorMessage === undefined ? {} : { message: scenario.errorMessage }),
      ...(scenario.errorType === undefined ? {} : { type: scenario.errorType }),
    }).body;

  res.writeHead(200, {
    'content-type':
      scenario.contentType ?? (ctx.dialect === 'moonshot' ? 'text/event-stream' : 'text/event-stream; charset=utf-8'),
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...(ctx.dialect === 'deepseek' ? { 'x-accel-buffering': 'no' } : {}),
  });
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  // The queue phase is counted in sleeps, not read off the clock, so that the bytes do not depend on timing: exactly
  // ceil(queueMs / keepAliveMs) comments, each after a sleep of keepAliveMs (the last one of the remainder). An event
  // loop blocked meanwhile makes the phase longer, never the stream different.
  if (scenario.queueMs !== undefined && scenario.queueMs > 0) {
    const every = Math.max(1, scenario.keepAliveMs ?? 100);
    for (let left = scenario.queueMs; left > 0 && !signal.aborted; left -= every) {
      await sleep(Math.min(every, left), signal);
      if (ctx.dialect === 'deepseek' && !signal.aborted) await write(`: keep-alive${eol}${eol}`);
    }
  }

  /**
   * Applies the faults placed "after k events"; true when the stream must stop here. At the end of the answer
   * (`atEnd`, before `[DONE]`) it also applies those placed after more events than the answer has.
   */
  const faultsAt = async (k: number, atEnd = false): Promise<boolean> => {
    const at = (position: number | undefined): boolean =>
      position !== undefined && (position === k || (atEnd && position > k));
    if (at(scenario.stallAfter)) {
      await new Promise<void>((resolve) =>
        signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve()),
      );
      return true;
    }
    if (at(scenario.resetAfter)) {
      progress.closedByFault = true;
      res.socket?.resetAndDestroy();
      return true;
    }
    if (at(scenario.eofAfter)) return end();
    if (at(scenario.malformedJsonAt))
      await write(`${data}${ctx.chunkHead}"choices":[{"index":0,"delta":{"content":"cut${eol}${eol}`);
    if (at(scenario.bareLineAt)) await write(`this is not an SSE line${eol}`);
    if (at(scenario.invalidUtf8At)) {
      await write(
        Buffer.concat([
          Buffer.from(`${data}${ctx.chunkHead}"choices":[{"index":0,"delta":{"content":"`),
          Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
          Buffer.from(`"},"finish_reason":null}]}${eol}${eol}`),
        ]),
      );
    }
    if (scenario.hugeEvent !== undefined && at(1)) {
      await write(`${data}${ctx.chunkHead}"choices":[{"index":0,"delta":{"content":"`);
      const slice = 'x'.repeat(65536);
      for (let left = scenario.hugeEvent; left > 0 && !signal.aborted; left -= slice.length)
        await write(slice.slice(0, left));
      await write(`"},"finish_reason":null}]}${eol}${eol}`);
    }
    if (at(scenario.errorEventAt)) {
      await write(`event: error${eol}${data}${errorJson()}${eol}${eol}`);
      return end();
    }
    if (at(scenario.errorPayloadAt)) {
      await write(`${data}${errorJson()}${eol}${eol}`);
      return end();
    }
    return signal.aborted;
  };
  const end = (): true => {
    if (!signal.aborted) res.end();
    return true;
  };

  for (const frame of ctx.frames) {
    if (signal.aborted || (await faultsAt(progress.framesWritten))) return;
    if (scenario.paceMs && progress.framesWritten > 0) await sleep(scenario.paceMs, signal);
    if (signal.aborted) return;
    progress.framesWritten++;
    await write(`${data}${frame}${eol}${eol}`);
  }
  if (signal.aborted || (await faultsAt(progress.framesWritten, true))) return;
  if (!scenario.noDone) await write(`${data}[DONE]${eol}${eol}`);
  end();
}
