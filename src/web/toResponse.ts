import { Subscription, type Observable } from 'rxjs';
import { ConfigError, ShutdownError } from '../core/errors.js';
import { toErrorResponse } from '../core/toErrorResponse.js';
import { CHAT_WIRES, type ChatWireFormat } from '../node/CHAT_WIRES.js';
import type { WriteOutcome } from '../node/WriteOutcome.js';
import type { WireFormat } from '../wire/WireFormat.js';
import type { ToResponseConfig } from './ToResponseConfig.js';

/** Bytes queued in the body before the demand gate closes (as node's default `highWaterMark` of a socket). */
const HIGH_WATER_MARK = 16 * 1024;

/**
 * Serves an Observable as a web-standard `Response` (Hono, Next.js route handlers, Bun, Deno) in one of the three
 * wires: the web twin of the node writers (`sendJson`, `sendNdjson`, `sendSse`), with the same bytes, headers and
 * error contract.
 *
 * ```text
 * source:    ──a────b────c──|            ──#                ──a──#
 * Response:  200 ─a─b─c─trailer           4xx/5xx + error    200 ─a─in-band error frame
 *            (settles with a)             (settles with #)   (settles with a)
 * ```
 *
 * 1. The promise settles with the first event: the first value (or heartbeat) commits a 200 whose body streams the
 *    rest; an error before it gives a real status from `toErrorResponse` (`Retry-After` on 429/503,
 *    `WWW-Authenticate` on 401) and the endpoint's error body; a `json` source settles at completion, with
 *    `Content-Length`.
 * 2. After the commit, an error is the in-band error frame (`encodeError`), then the body closes.
 * 3. The body is a `ReadableStream` pulled by the client: while more than 16 KiB wait in its queue, `demand.pause()`;
 *    the next pull resumes it. So a client that stops reading stops the upstream read.
 * 4. Cancelling the body, or `requestSignal` aborting (the client went away), unsubscribes from the source, which
 *    aborts the upstream request.
 * 5. The heartbeat is written after `heartbeatMs` of silence (skipped while the queue is full).
 * 6. The demand gate's write stall deadline (`createDemandGate({ stallTimeoutMs })`) errors the body of a client that
 *    has not pulled that long (the platform drops its connection) and unsubscribes (the upstream is aborted).
 * 7. `config.signal` aborting ends the response with its reason (a `ShutdownError` by default).
 *
 * ## Example (Hono)
 * ```ts
 * app.post('/my/sse', (c) => toResponse(client.sse(request), 'sse'));
 * ```
 *
 * @param source - The values to send; unsubscribed on cancel, abort or end.
 * @param wire - `'json'`, `'ndjson'` or `'sse'` (`CHAT_WIRES`), or a {@link WireFormat} of your own.
 * @param config - Demand gate, abort signal, secrets, heartbeat interval, callbacks.
 * @returns The response, once its status is known (never rejects).
 */
export function toResponse<T>(source: Observable<T>, wire: ChatWireFormat | WireFormat<T>, config: ToResponseConfig = {}): Promise<Response> {
  const format = (typeof wire === 'string' ? CHAT_WIRES[wire].format : wire) as WireFormat<T>;
  const { demand, signal, requestSignal, secrets = [], heartbeatMs = 15_000, onValue, onEnd } = config;
  const encoder = new TextEncoder();
  const started = performance.now();
  return new Promise<Response>((resolve) => {
    let committed = false;
    let done = false;
    let values = 0;
    let bytes = 0;
    let firstValueMs: number | undefined;
    let pending: { value: T } | undefined;
    let heartbeat: ReturnType<typeof setTimeout> | undefined;
    let lastWrite = started;
    let body: ReadableStreamDefaultController<Uint8Array> | undefined;
    let early: Uint8Array[] = []; // chunks written before the stream's start ran
    const subscription = new Subscription();

    const resume = (): void => demand?.resume();
    const settle = (result: WriteOutcome['result'], status: number, error?: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(heartbeat);
      signal?.removeEventListener('abort', onAbort);
      requestSignal?.removeEventListener('abort', onGone);
      subscription.unsubscribe();
      resume();
      const outcome: WriteOutcome = { result, status, committed, values, bytes };
      if (error !== undefined) outcome.error = error;
      if (firstValueMs !== undefined) outcome.firstValueMs = firstValueMs;
      onEnd?.(outcome);
    };
    const respond = (status: number, content: BodyInit | null, headers: Record<string, string>): void =>
      resolve(new Response(content, { status, headers }));
    const enqueue = (text: string): void => {
      const chunk = encoder.encode(text);
      bytes += chunk.byteLength;
      lastWrite = performance.now();
      if (body === undefined) return void early.push(chunk);
      body.enqueue(chunk);
      if ((body.desiredSize ?? 1) <= 0 && demand?.isOpen === true) demand.pause();
    };
    const close = (): void => {
      if (body === undefined) early.push(new Uint8Array(0)); // marks the end for start()
      else body.close();
    };
    const commit = (): void => {
      if (committed) return;
      committed = true;
      const stream = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            for (const chunk of early) {
              if (chunk.byteLength === 0) controller.close();
              else controller.enqueue(chunk);
            }
            early = [];
            body = controller;
          },
          pull: () => resume(),
          cancel: () => settle('disconnected', 200),
        },
        new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_MARK }),
      );
      respond(200, stream, { ...format.headers });
    };
    const onHeartbeat = (): void => {
      heartbeat = undefined;
      if (done) return;
      const silent = performance.now() - lastWrite;
      if (silent < heartbeatMs) return armHeartbeat(heartbeatMs - silent);
      if (body === undefined || (body.desiredSize ?? 1) > 0) write(format.heartbeat ?? '');
      else armHeartbeat(heartbeatMs);
    };
    const armHeartbeat = (ms: number): void => {
      if (format.heartbeat === undefined || heartbeatMs <= 0 || done || heartbeat !== undefined) return;
      heartbeat = setTimeout(onHeartbeat, Math.max(1, Math.ceil(ms)));
    };
    const write = (text: string): void => {
      commit();
      enqueue(text);
      armHeartbeat(heartbeatMs);
    };
    const fail = (error: unknown): void => {
      if (done) return;
      const { status, body: errorBody, retryAfterSeconds } = toErrorResponse(error, { secrets });
      const text = format.encodeError(errorBody);
      if (committed) {
        enqueue(text);
        close();
        return settle('failed', 200, error);
      }
      const before = format.errorResponse; // a format whose early errors differ (OpenAI's stream: JSON)
      const encoded = encoder.encode(before === undefined ? text : before.encodeError(errorBody));
      const headers: Record<string, string> = { ...(before ?? format).headers, 'Content-Length': String(encoded.byteLength) };
      if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
      if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
      bytes += encoded.byteLength;
      respond(status, encoded, headers);
      settle('failed', status, error);
    };
    const onAbort = (): void => {
      const reason: unknown = signal?.reason;
      fail(reason instanceof Error && reason.name !== 'AbortError' ? reason : new ShutdownError());
    };
    const onGone = (): void => {
      if (done) return;
      if (!committed) respond(499, null, {});
      else if (body !== undefined) {
        try {
          body.close(); // nobody reads it any more: ended without its trailer
        } catch {
          // cancelled already by the platform
        }
      }
      settle('disconnected', committed ? 200 : 0);
    };
    const complete = (): void => {
      if (done) return;
      if (!format.streaming) {
        if (pending === undefined) return fail(new ConfigError('toResponse(…, "json") expects a Mono (exactly one value); the source completed empty.'));
        let text: string;
        try {
          text = format.encode(pending.value);
        } catch (error) {
          return fail(error);
        }
        const encoded = encoder.encode(text);
        committed = true;
        bytes += encoded.byteLength;
        respond(200, encoded, { ...format.headers, 'Content-Length': String(encoded.byteLength) });
      } else {
        commit(); // an empty Flux is still a 200 of this format
        enqueue(format.trailer);
        close();
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
      if (pending !== undefined) return fail(new ConfigError('toResponse(…, "json") expects a Mono (exactly one value); the source emitted a second value.'));
      pending = { value };
    };

    // The write stall deadline (the gate's `stallTimeoutMs`): the body errors (the platform drops the connection), the upstream is released.
    subscription.add(
      demand?.onStall?.((error) => {
        body?.error(error);
        settle('failed', 200, error);
      }),
    );
    if (requestSignal?.aborted) return onGone();
    requestSignal?.addEventListener('abort', onGone, { once: true });
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    armHeartbeat(heartbeatMs);
    subscription.add(source.subscribe({ next, error: fail, complete }));
  });
}
