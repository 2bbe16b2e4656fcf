import type { ServerResponse } from 'node:http';
import { Subscription, type Observable } from 'rxjs';
import { ConfigError, ShutdownError } from '../core/errors.js';
import { toErrorResponse } from '../core/toErrorResponse.js';
import type { DemandGate } from '../core/createDemandGate.js';
import type { WireFormat } from '../wire/WireFormat.js';
import type { WriteOutcome } from './WriteOutcome.js';

/** Options of {@link writeResponse} and of the `send*` writers. */
export interface WriteResponseConfig {
  /**
   * The demand gate shared with the upstream source: closed when `res.write()` returns `false`, opened again on
   * `'drain'` or `'close'`. Pass the same gate to the chat client so a slow client pauses the upstream read.
   */
  demand?: DemandGate;
  /**
   * Ends the response early: before the commit with the error status of `signal.reason`, after it with the in-band
   * error frame. Used for graceful shutdown: abort with a `ShutdownError` (503 `shutting_down` + `Retry-After`); a
   * reason that is not an `Error`, or the default `AbortError` of `controller.abort()`, counts as one.
   */
  signal?: AbortSignal;
  /** Literal secrets (API keys, gateway keys) to redact from error messages, whatever their shape. */
  secrets?: readonly string[];
  /** Silence (ms) after which the heartbeat is written, when the format has one; `0` disables. Default 15000. */
  heartbeatMs?: number;
  /** Called once with each value before it is written (logging, metrics). */
  onValue?: (value: unknown) => void;
}

const flush = (res: ServerResponse): void => (res as ServerResponse & { flush?: () => void }).flush?.();

/**
 * Writes an Observable onto a `node:http` `ServerResponse` in a {@link WireFormat}: the shared core of
 * `sendJson`, `sendNdjson` and `sendSse`.
 *
 * 1. The 200 headers are committed lazily, with the first value or the first heartbeat (a streaming source that
 *    completes empty commits them at its end); an error before that gets a real status from `toErrorResponse` (plus
 *    `Retry-After` on 429 and 503, `WWW-Authenticate` on 401) and the endpoint's error body.
 * 2. After the commit, an error is written in-band (`encodeError`) and the response ends.
 * 3. When `res.write()` returns `false`, `demand.pause()`; `'drain'` or `'close'` resume it.
 * 4. `'close'` of the response before its end unsubscribes from the source, which aborts the upstream request.
 * 5. The heartbeat is written after `heartbeatMs` of silence (skipped while the socket is full).
 * 6. The frames of one tick of the event loop (a network read of the upstream usually carries several) are written
 *    with one `res.write()` at the end of that tick, then `res.flush()` when present (compression middleware).
 *    The end of the response and an in-band error are written after them, in order.
 * 7. The demand gate's write stall deadline (`createDemandGate({ stallTimeoutMs })`) ends a response whose client
 *    has not drained that long: the source unsubscribed (the upstream aborted), the socket destroyed, a `failed`
 *    outcome with a `RequestError` `client_stalled`.
 * 8. `config.signal` aborting ends the response with its reason as the error (a `ShutdownError` by default: a
 *    still-connected client gets 503 + `Retry-After`, or the in-band `shutting_down` frame once committed).
 *
 * @param res - The response (Express's `res` is one). Nothing may have been written to it.
 * @param source - The values to send; unsubscribed on disconnect, abort or end.
 * @param format - The endpoint's wire format.
 * @param config - Demand gate, abort signal, secrets, heartbeat interval.
 * @returns A promise of the {@link WriteOutcome}, settled once the response has ended or the client went away.
 */
export function writeResponse<T>(
  res: ServerResponse,
  source: Observable<T>,
  format: WireFormat<T>,
  config: WriteResponseConfig = {},
): Promise<WriteOutcome> {
  const { demand, signal, secrets = [], heartbeatMs = 15_000, onValue } = config;
  const started = performance.now();
  return new Promise<WriteOutcome>((resolve) => {
    let committed = false;
    let done = false;
    let values = 0;
    let bytes = 0;
    let firstValueMs: number | undefined;
    let pending: { value: T } | undefined;
    let heartbeat: ReturnType<typeof setTimeout> | undefined;
    let lastWrite = started; // of the latest write: the one heartbeat timer checks it instead of being re-armed per value
    let queued = ''; // frames of the current tick, written by writeQueued at its end
    let flushScheduled = false;
    const subscription = new Subscription();

    const resume = (): void => demand?.resume();
    const settle = (result: WriteOutcome['result'], status: number, error?: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(heartbeat);
      takeQueued(); // written already by complete/fail; else the client is gone and the frames are dropped (but counted)
      res.off('close', onClose);
      res.off('drain', resume);
      signal?.removeEventListener('abort', onAbort);
      subscription.unsubscribe();
      resume();
      const outcome: WriteOutcome = { result, status, committed, values, bytes };
      if (error !== undefined) outcome.error = error;
      if (firstValueMs !== undefined) outcome.firstValueMs = firstValueMs;
      resolve(outcome);
    };
    const commit = (extra: Record<string, string | number> = {}): void => {
      if (committed) return;
      committed = true;
      const headers: Record<string, string | number> = { ...format.headers, ...extra };
      if (format.streaming && res.shouldKeepAlive) headers['Connection'] = 'keep-alive';
      res.writeHead(200, headers);
    };
    const onHeartbeat = (): void => {
      heartbeat = undefined;
      if (done) return;
      const silent = performance.now() - lastWrite;
      if (silent < heartbeatMs) return armHeartbeat(heartbeatMs - silent);
      if (!res.writableNeedDrain) write(format.heartbeat ?? '');
      else armHeartbeat(heartbeatMs);
    };
    /** Arms the one heartbeat timer (when none is pending); a write only moves `lastWrite`. */
    const armHeartbeat = (ms: number): void => {
      if (format.heartbeat === undefined || heartbeatMs <= 0 || done || heartbeat !== undefined) return;
      heartbeat = setTimeout(onHeartbeat, Math.max(1, Math.ceil(ms)));
    };
    /** Takes (and counts) the frames queued in this tick: the caller writes them before anything else, or drops them. */
    const takeQueued = (): string => {
      const text = queued;
      if (text === '') return text;
      queued = '';
      bytes += Buffer.byteLength(text);
      return text;
    };
    const writeQueued = (): void => {
      flushScheduled = false;
      if (queued === '') return;
      lastWrite = performance.now();
      const text = takeQueued();
      if (res.destroyed || res.writableEnded) return;
      if (!res.write(text) && demand !== undefined && demand.isOpen) {
        demand.pause();
        res.once('drain', resume);
      }
      flush(res);
    };
    const write = (text: string): void => {
      commit();
      queued += text;
      if (!flushScheduled) {
        flushScheduled = true;
        process.nextTick(writeQueued); // the heartbeat's `lastWrite` is set there, once per tick
      }
      armHeartbeat(heartbeatMs);
    };
    const fail = (error: unknown): void => {
      if (done) return;
      const { status, body, retryAfterSeconds } = toErrorResponse(error, { secrets });
      let text = format.encodeError(body);
      if (committed || res.headersSent) {
        bytes += Buffer.byteLength(text);
        res.end(takeQueued() + text);
        return settle('failed', 200, error);
      }
      const before = format.errorResponse;
      if (before !== undefined) text = before.encodeError(body);
      const headers: Record<string, string | number> = { ...(before ?? format).headers, 'Content-Length': Buffer.byteLength(text) };
      if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
      if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
      bytes += Buffer.byteLength(text);
      res.writeHead(status, headers).end(text);
      settle('failed', status, error);
    };
    const onClose = (): void => {
      if (!res.writableFinished) settle('disconnected', committed ? 200 : 0);
    };
    const onAbort = (): void => {
      const reason: unknown = signal?.reason;
      // The client is still connected (a disconnect settles first), so it is told to retry, never a log-only 499.
      fail(reason instanceof Error && reason.name !== 'AbortError' ? reason : new ShutdownError());
    };
    const complete = (): void => {
      if (done) return;
      if (!format.streaming) {
        if (pending === undefined) return fail(new ConfigError('sendJson expects a Mono (exactly one value); the source completed empty.'));
        let text: string;
        try {
          text = format.encode(pending.value);
        } catch (error) {
          return fail(error);
        }
        commit({ 'Content-Length': Buffer.byteLength(text) });
        bytes += Buffer.byteLength(text);
        res.end(text);
      } else {
        commit(); // an empty Flux is still a 200 of this format: its Content-Type, Cache-Control, X-Accel-Buffering
        bytes += Buffer.byteLength(format.trailer);
        res.end(takeQueued() + format.trailer);
      }
      settle('completed', 200);
    };
    const next = (value: T): void => {
      if (done) return;
      firstValueMs ??= performance.now() - started;
      values += 1;
      let text: string | undefined;
      try {
        onValue?.(value);
        if (format.streaming) text = format.encode(value);
      } catch (error) {
        return fail(error);
      }
      if (text !== undefined) return write(text);
      if (pending !== undefined) return fail(new ConfigError('sendJson expects a Mono (exactly one value); the source emitted a second value.'));
      pending = { value };
    };

    if (res.destroyed || res.writableEnded) return settle('disconnected', 0);
    res.on('close', onClose);
    // The write stall deadline (the gate's `stallTimeoutMs`): no frame reaches a client that does not read, so the
    // upstream is released (settle unsubscribes) and the socket destroyed.
    subscription.add(
      demand?.onStall?.((error) => {
        settle('failed', committed ? 200 : 0, error);
        res.destroy();
      }),
    );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    armHeartbeat(heartbeatMs);
    // Added to a closed Subscription (settled synchronously), the source's subscription is unsubscribed at once.
    subscription.add(source.subscribe({ next, error: fail, complete }));
  });
}
