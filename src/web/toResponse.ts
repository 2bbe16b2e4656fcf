import type { Observable } from 'rxjs';
import { SERVING_WIRES, type ChatWireFormat } from '../serve/SERVING_WIRES.js';
import { createResponseWriter } from '../serve/createResponseWriter.js';
import type { ResponseSink } from '../serve/ResponseSink.js';
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
 * @param wire - `'json'`, `'ndjson'` or `'sse'` (`SERVING_WIRES`), or a {@link WireFormat} of your own.
 * @param config - Demand gate, abort signal, secrets, heartbeat interval, callbacks.
 * @returns The response, once its status is known (never rejects).
 */
export function toResponse<T>(
  source: Observable<T>,
  wire: ChatWireFormat | WireFormat<T>,
  config: ToResponseConfig = {},
): Promise<Response> {
  const format = (typeof wire === 'string' ? SERVING_WIRES[wire].format : wire) as WireFormat<T>;
  const { demand, requestSignal, onEnd } = config;
  const encoder = new TextEncoder();
  return new Promise<Response>((resolve) => {
    let body: ReadableStreamDefaultController<Uint8Array> | undefined; // set by commit: a stream's start() runs at once

    const resume = (): void => demand?.resume();
    const respond = (status: number, content: BodyInit | null, headers: Record<string, string>): void =>
      resolve(new Response(content, { status, headers }));
    // The writer writes only after its commit, which made the body: `body` is set whenever this runs.
    const enqueue = (text: string): void => {
      if (text === '' || body === undefined) return;
      const chunk = encoder.encode(text);
      sink.bytes += chunk.byteLength;
      sink.lastWrite = performance.now();
      body.enqueue(chunk);
      if ((body.desiredSize ?? 1) <= 0 && demand?.isOpen === true) demand.pause();
    };
    const sink: ResponseSink = {
      commit(headers) {
        const stream = new ReadableStream<Uint8Array>(
          {
            start(controller) {
              body = controller;
            },
            pull: () => resume(),
            cancel: () => writer.gone(),
          },
          new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_MARK }),
        );
        respond(200, stream, { ...headers });
      },
      write: enqueue,
      end(text) {
        enqueue(text);
        body?.close();
      },
      respond(status, headers, text) {
        const encoded = encoder.encode(text);
        sink.bytes += encoded.byteLength;
        respond(status, encoded, { ...headers, 'Content-Length': String(encoded.byteLength) });
      },
      release() {
        requestSignal?.removeEventListener('abort', onGone);
        resume();
      },
      isFull: () => body !== undefined && (body.desiredSize ?? 1) <= 0,
      hasSentHeaders: () => false,
      bytes: 0,
      lastWrite: performance.now(),
    };
    const writer = createResponseWriter(format, sink, {
      ...config,
      name: 'toResponse(…, "json")',
      onSettle: (outcome) => onEnd?.(outcome),
    });
    const onGone = (): void => {
      if (writer.done) return;
      if (!writer.committed) respond(499, null, {});
      else if (body !== undefined) {
        try {
          body.close(); // nobody reads it any more: ended without its trailer
        } catch {
          // cancelled already by the platform
        }
      }
      writer.gone();
    };

    // The write stall deadline (the gate's `stallTimeoutMs`): the body errors (the platform drops the connection), the upstream is released.
    writer.add(
      demand?.onStall?.((error) => {
        body?.error(error);
        writer.abandon(error); // only after the commit: the gate closes on a full body
      }),
    );
    if (requestSignal?.aborted) return onGone();
    requestSignal?.addEventListener('abort', onGone, { once: true });
    writer.start(source);
  });
}
