import { Subscription, type Observable, type TeardownLogic } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError, ShutdownError } from '../core/errors.js';
import { toErrorResponse } from '../core/toErrorResponse.js';
import type { WireFormat } from '../wire/WireFormat.js';
import type { ResponseSink } from './ResponseSink.js';
import { SERVING_DEFAULTS } from './SERVING_DEFAULTS.js';
import type { WriteOutcome } from './WriteOutcome.js';

/**
 * Options of {@link createResponseWriter}: the platform-neutral part of `WriteResponseConfig` (node) and
 * `ToResponseConfig` (web), which are made of it.
 */
export interface ResponseWriterConfig {
  /**
   * Ends the response early: before the commit with the error status of `signal.reason`, after it with the in-band
   * error frame. Used for graceful shutdown: abort with a `ShutdownError` (503 `shutting_down` + `Retry-After`); a
   * reason that is not an `Error`, or the default `AbortError` of `controller.abort()`, counts as one.
   */
  signal?: AbortSignal;
  /** Literal secrets (API keys, gateway keys) to redact from error messages, whatever their shape. */
  secrets?: readonly string[];
  /** Silence (ms) after which the format's heartbeat is written; `0` (or `Infinity`) disables. Default 15000. */
  heartbeatMs?: number;
  /** Called once with each value before it is written (logging, metrics). */
  onValue?: (value: unknown) => void;
  /** Called each time the format's heartbeat is written (`: ping`, `: keep-alive`), for a metric without a look at every write. */
  onHeartbeat?: () => void;
  /**
   * No heartbeat before this settles: pass the promise of the request being read and checked when the source reads
   * it (as the serving core does), so that its refusal (400, 408, 413) keeps its status — a heartbeat commits the 200.
   * Default: the heartbeat runs from the start.
   */
  heartbeatAfter?: PromiseLike<unknown>;
  /** Names the writer in the misuse errors of a `json` source (`sendJson`, `toResponse(…, "json")`). */
  name: string;
  /** Called once with the outcome, when the response has ended or the client went away. */
  onSettle: (outcome: WriteOutcome) => void;
}

/** The handle of one response being written by {@link createResponseWriter}. */
export interface ResponseWriter<T> {
  /** Subscribes to the source (after the sink's own listeners are in place). */
  start(source: Observable<T>): void;
  /** The client went away: settles `disconnected` (status 200 once committed, else 0) and unsubscribes. */
  gone(): void;
  /**
   * Gives the response up without writing anything more (the sink ends it as it must, e.g. a stalled client's socket
   * destroyed): settles `failed` with `error` (status 200 once committed, else 0) and unsubscribes.
   */
  abandon(error: unknown): void;
  /** Ties a teardown (a listener's removal, a deadline's subscription) to the response: run when it settles. */
  add(teardown: TeardownLogic): void;
  /** Whether the 200 (or an error status) has been sent. */
  readonly committed: boolean;
  /** Whether the outcome is settled. */
  readonly done: boolean;
}

/**
 * The one state machine of the HTTP writers, shared by the node writers (`writeResponse`: a `ServerResponse` sink)
 * and the web one (`toResponse`: a `ReadableStream` sink). The sink only moves bytes; everything else is here:
 *
 * ```text
 * source:   ──a────b────c──|         ──#                   ──a──#
 * sink:     commit a  b  c  end(T)    respond(4xx/5xx, E)   commit a  end(E)
 *           T: format.trailer          E: format.encodeError(toErrorResponse(#))
 * ```
 *
 * 1. The 200 is committed lazily, with the first value or heartbeat (an empty streaming source commits at its end);
 *    an error before it is a whole response with the real status (`Retry-After` on 429/503, `WWW-Authenticate` on
 *    401); after it, the in-band error frame and the end.
 * 2. A `json` format holds its one value (a Mono) and writes it at completion with `Content-Length`.
 * 3. The heartbeat is written after `heartbeatMs` of silence, skipped while the sink is full; one timer, re-armed
 *    only when it fires (a write just moves `lastWrite`). With `heartbeatAfter`, the first one waits for it too.
 * 4. `config.signal` aborting fails the response with its reason; `gone()` (the sink saw the client leave) settles.
 *    Settling unsubscribes from the source, which aborts the upstream request.
 *
 * @param format - The endpoint's wire format.
 * @param sink - Where the bytes go (node `ServerResponse`, web `ReadableStream`).
 * @param config - Abort signal, secrets, heartbeat, hooks.
 * @returns The writer; call `start(source)` once.
 */
export function createResponseWriter<T>(
  format: WireFormat<T>,
  sink: ResponseSink,
  config: ResponseWriterConfig,
): ResponseWriter<T> {
  const { signal, secrets = [], heartbeatMs = SERVING_DEFAULTS.heartbeatMs, onValue, onHeartbeat: heartbeatWritten, name, onSettle } = config;
  const started = performance.now();
  const streaming = format.streaming;
  const encode = format.encode;
  // `Infinity` (or more than a timer waits, 2^31 - 1 ms) is no heartbeat, as `0`: Node fires such a timer after 1 ms.
  const heartbeatText = heartbeatMs > 0 && heartbeatMs <= 2 ** 31 - 1 ? format.heartbeat : undefined;
  let values = 0;
  let firstValueMs: number | undefined;
  let pending: { value: T } | undefined;
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  const subscription = new Subscription();

  const settle = (result: WriteOutcome['result'], status: number, error?: unknown): void => {
    if (writer.done) return;
    writer.done = true;
    clearTimeout(heartbeat);
    signal?.removeEventListener('abort', onAbort);
    subscription.unsubscribe();
    sink.release();
    const outcome: WriteOutcome = { result, status, committed: writer.committed, values, bytes: sink.bytes };
    if (error !== undefined) outcome.error = error;
    if (firstValueMs !== undefined) outcome.firstValueMs = firstValueMs;
    onSettle(outcome);
  };
  const commit = (): void => {
    if (writer.committed) return;
    writer.committed = true;
    sink.commit(format.headers);
  };
  const onHeartbeat = (): void => {
    heartbeat = undefined;
    if (writer.done) return;
    const silent = performance.now() - sink.lastWrite; // one timer, checked against the sink's latest write
    if (silent < heartbeatMs) return armHeartbeat(heartbeatMs - silent);
    if (sink.isFull()) return armHeartbeat(heartbeatMs);
    write(heartbeatText ?? '');
    heartbeatWritten?.();
  };
  const armHeartbeat = (ms: number): void => {
    if (heartbeatText === undefined || writer.done || heartbeat !== undefined) return;
    heartbeat = setTimeout(onHeartbeat, Math.max(1, Math.ceil(ms)));
  };
  const write = (text: string): void => {
    if (!writer.committed) commit();
    sink.write(text);
    if (heartbeat === undefined) armHeartbeat(heartbeatMs);
  };
  const fail = (error: unknown): void => {
    if (writer.done) return;
    const { status, body, retryAfterSeconds } = toErrorResponse(error, { secrets });
    const text = format.encodeError(body);
    if (writer.committed || sink.hasSentHeaders()) {
      sink.end(text);
      return settle('failed', 200, error);
    }
    const before = format.errorResponse; // a format whose early errors differ (OpenAI's stream: JSON)
    const headers: Record<string, string> = { ...(before ?? format).headers };
    if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
    if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
    sink.respond(status, headers, before === undefined ? text : before.encodeError(body));
    settle('failed', status, error);
  };
  const onAbort = (): void => {
    const reason: unknown = signal?.reason;
    // The client is still connected (a disconnect settles first), so it is told to retry, never a log-only 499.
    fail(reason instanceof Error && reason.name !== 'AbortError' ? reason : new ShutdownError());
  };
  const complete = (): void => {
    if (writer.done) return;
    if (!streaming) {
      if (pending === undefined)
        return fail(new ConfigError(`${name} expects a Mono (exactly one value); the source completed empty.`));
      let text: string;
      try {
        text = encode(pending.value);
      } catch (error) {
        return fail(error);
      }
      writer.committed = true;
      sink.respond(200, format.headers, text);
    } else {
      commit(); // an empty Flux is still a 200 of this format: its Content-Type, Cache-Control, X-Accel-Buffering
      sink.end(format.trailer);
    }
    settle('completed', 200);
  };
  const next = (value: T): void => {
    if (writer.done) return;
    if (values++ === 0) firstValueMs = performance.now() - started;
    if (streaming) {
      let text: string;
      try {
        if (onValue !== undefined) onValue(value);
        text = encode(value);
      } catch (error) {
        return fail(error);
      }
      return write(text);
    }
    try {
      onValue?.(value);
    } catch (error) {
      return fail(error);
    }
    if (pending !== undefined)
      return fail(new ConfigError(`${name} expects a Mono (exactly one value); the source emitted a second value.`));
    pending = { value };
  };

  // `committed` and `done` are data properties kept current, not getters: an object literal with getters gets a hidden
  // class of its own (one per response, ~0.6 KB each).
  const writer: { committed: boolean; done: boolean } & Omit<ResponseWriter<T>, 'committed' | 'done'> = {
    committed: false,
    done: false,
    start(source) {
      if (writer.done) return;
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const { heartbeatAfter } = config;
      if (heartbeatAfter === undefined) armHeartbeat(heartbeatMs);
      else {
        const arm = (): void => armHeartbeat(heartbeatMs); // a no-op once settled, or with a timer armed by a write
        heartbeatAfter.then(arm, arm);
      }
      // Added to a closed Subscription (settled synchronously), the source's subscription is unsubscribed at once.
      // The writer's own subscriber, the last of the chain: a plain observer would be wrapped in a SafeSubscriber and
      // a ConsumerObserver (two more calls, and a try/catch each, per frame); a handler's throw fails the response.
      subscription.add(source.subscribe(createOperatorSubscriber<T>(undefined, next, complete, fail)));
    },
    gone() {
      settle('disconnected', writer.committed ? 200 : 0);
    },
    abandon(error) {
      settle('failed', writer.committed ? 200 : 0, error);
    },
    add(teardown) {
      subscription.add(teardown);
    },
  };
  return writer;
}
