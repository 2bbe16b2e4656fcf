import type { ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import type { DemandGate } from '../core/createDemandGate.js';
import type { WireFormat } from '../wire/WireFormat.js';
import { createResponseWriter, type ResponseWriterConfig } from '../serve/createResponseWriter.js';
import type { ResponseSink } from '../serve/ResponseSink.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';

/** Options of {@link writeResponse} and of the `send*` writers: the writer's own (`ResponseWriterConfig`) and the demand gate. */
export interface WriteResponseConfig extends Omit<ResponseWriterConfig, 'name' | 'onSettle'> {
  /**
   * The demand gate shared with the upstream source: closed when `res.write()` returns `false`, opened again on
   * `'drain'` or `'close'`. Pass the same gate to the chat client so a slow client pauses the upstream read.
   */
  demand?: DemandGate;
}

const flush = (res: ServerResponse): void => (res as ServerResponse & { flush?: () => void }).flush?.();

/**
 * Writes an Observable onto a `node:http` `ServerResponse` in a {@link WireFormat}: the shared core of
 * `sendJson`, `sendNdjson` and `sendSse` — `createResponseWriter`'s state machine over a `ServerResponse` sink.
 *
 * 1. The 200 headers are committed lazily, with the first value or the first heartbeat (a streaming source that
 *    completes empty commits them at its end); an error before that gets a real status from `toErrorResponse` (plus
 *    `Retry-After` on 429 and 503, `WWW-Authenticate` on 401) and the endpoint's error body.
 * 2. After the commit, an error is written in-band (`encodeError`) and the response ends.
 * 3. When `res.write()` returns `false`, `demand.pause()`; `'drain'` or `'close'` resume it.
 * 4. `'close'` of the response before its end unsubscribes from the source, which aborts the upstream request.
 * 5. The heartbeat is written after `heartbeatMs` of silence (skipped while the socket is full; not before
 *    `config.heartbeatAfter` settles).
 * 6. The first frame (or heartbeat) is written at once, with the headers, and the socket uncorked (the time to the
 *    first byte does not wait for the rest of its network read); after it, the frames of one tick of the event loop (a network read of the
 *    upstream usually carries several) are written with one `res.write()` at the end of that tick, then
 *    `res.flush()` when present (compression middleware). The end of the response and an in-band error are written
 *    after them, in order.
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
  const { demand } = config;
  return new Promise<WriteOutcome>((resolve) => {
    let queued = ''; // frames of the current tick, written by writeQueued at its end
    let flushScheduled = false;
    let firstWrite = true;

    const resume = (): void => demand?.resume();
    /**
     * The text as UTF-8, counted: encoded once here and written as bytes. (Counting with `Buffer.byteLength` and
     * writing the string encoded it twice; for text with non-Latin-1 characters each pass walks every character.)
     */
    const encodeCounted = (text: string): Buffer => {
      const encoded = Buffer.from(text, 'utf8');
      sink.bytes += encoded.length;
      return encoded;
    };
    const writeQueued = (): void => {
      flushScheduled = false;
      if (queued === '') return;
      sink.lastWrite = performance.now();
      const text = queued;
      queued = '';
      if (res.destroyed || res.writableEnded) {
        sink.bytes += Buffer.byteLength(text); // dropped, but counted
        return;
      }
      if (!res.write(encodeCounted(text)) && demand !== undefined && demand.isOpen) {
        demand.pause();
        res.once('drain', resume);
      }
      flush(res);
    };
    const sink: ResponseSink = {
      commit(headers) {
        const head: Record<string, string> = { ...headers };
        if (format.streaming && res.shouldKeepAlive) head['Connection'] = 'keep-alive';
        res.writeHead(200, head);
      },
      write(text) {
        if (firstWrite) {
          // The first frame (or heartbeat) goes out at once, with the headers: a network read of the upstream can
          // carry hundreds of events, and the client's first byte would otherwise wait for all of them.
          firstWrite = false;
          queued = text;
          writeQueued();
          // Node corks the socket at a response's write until the next tick; that tick comes only once the rest of the
          // network read (hundreds of events) is parsed and written. Uncorked now, the headers and the first frame
          // leave at once. (An uncork of a socket that is not corked does nothing; later writes cork it again.)
          const socket = res.socket;
          if (socket !== null && socket.writableCorked > 0) socket.uncork();
          return;
        }
        queued += text;
        if (!flushScheduled) {
          flushScheduled = true;
          process.nextTick(writeQueued); // the heartbeat's `lastWrite` is set there, once per tick
        }
      },
      end(text) {
        const last = queued + text; // the frames of this tick, then the end
        queued = '';
        res.end(encodeCounted(last));
      },
      respond(status, headers, text) {
        const encoded = encodeCounted(text); // as write: encoded once, not counted and then encoded again by end()
        res.writeHead(status, { ...headers, 'Content-Length': encoded.length }).end(encoded);
      },
      release() {
        // Written already by end(); else the client is gone and the frames are dropped (but counted).
        if (queued !== '') sink.bytes += Buffer.byteLength(queued);
        queued = '';
        res.off('close', onClose);
        res.off('drain', resume);
        resume();
      },
      isFull: () => res.writableNeedDrain,
      hasSentHeaders: () => res.headersSent,
      bytes: 0,
      lastWrite: performance.now(), // of the latest write: set once per tick, in writeQueued
    };
    const writer = createResponseWriter(format, sink, { ...config, name: 'sendJson', onSettle: resolve });
    const onClose = (): void => {
      if (!res.writableFinished) writer.gone();
    };

    if (res.destroyed || res.writableEnded) return writer.gone();
    res.on('close', onClose);
    // The write stall deadline (the gate's `stallTimeoutMs`): no frame reaches a client that does not read, so the
    // upstream is released (settling unsubscribes) and the socket destroyed.
    writer.add(
      demand?.onStall?.((error) => {
        writer.abandon(error);
        res.destroy();
      }),
    );
    writer.start(source);
  });
}
