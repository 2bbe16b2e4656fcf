import { Observable } from 'rxjs';
import { createBodyReader, type BodySource } from './createBodyReader.js';
import { toTransportError } from './toTransportError.js';
import { AbortedError } from '../core/errors.js';
import type { DemandGate } from '../core/createDemandGate.js';

/** Options of {@link fromBody}. */
export interface FromBodyConfig {
  /** Read the next chunk only while this gate is open (the sink closes it when it is full). Absent: always open. */
  demand?: DemandGate;
  /** Aborting it cancels the body and errors with an `AbortedError`. */
  signal?: AbortSignal;
  /**
   * Asked once at unsubscription: `true` leaves the body as it is — not cancelled, no listener of ours left on it —
   * for the caller to finish or destroy (`requestCompletion` drains the last bytes of a finished answer so that its
   * keep-alive connection is reused). Absent or `false`: the body is cancelled.
   */
  keepOnUnsubscribe?: () => boolean;
}

/**
 * Turns a response body into a pull-based `Observable<Uint8Array>` that reads a chunk only on demand and cancels the
 * body on unsubscribe — even while a read is pending or the source waits on the demand gate.
 *
 * Unlike `from(asyncIterable)`, an idle body (an SSE socket that sends nothing) is released at once on unsubscribe.
 *
 * ```text
 * body:      [a]--[b]-----[c]|
 * demand:    open-----closed---open
 * fromBody:  -a---b-----------c|     (c is read only after the gate re-opens)
 * unsub:     -a---b--!               (the body is cancelled, the socket closed)
 * ```
 *
 * 1. Cold: each subscription reads the body (a body can be read once: subscribe once).
 * 2. Before each read, waits while `config.demand` is closed; buffers nothing beyond the chunk in hand.
 * 3. Completes when the body ends; a read failure errors with a `NetworkError` (cause attached). A failure while the
 *    source waits on a closed gate is kept, never thrown, and reported once the gate opens (in order, after the
 *    chunks already delivered).
 * 4. Unsubscription destroys a Node `Readable`, cancels a web stream, or calls `return()` on an async iterator —
 *    unless `config.keepOnUnsubscribe()` returns `true`, which only lets go of the body.
 * 5. `config.signal` aborted → the body is cancelled and the Observable errors with an `AbortedError`.
 *
 * ## Example
 * ```ts
 * const { body } = await request(url);
 * fromBody(body, { demand }).pipe(parseSse(), decodeChunk()).subscribe(console.log);
 * ```
 *
 * @param body - A web `ReadableStream`, a Node `Readable` (undici's body) or an `AsyncIterable<Uint8Array>`.
 * @param config - The demand gate, an abort signal, and whether to leave the body to the caller on unsubscription.
 * @returns A cold Observable of the body's chunks.
 */
export function fromBody(body: BodySource, config: FromBodyConfig = {}): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => {
    const { demand, signal, keepOnUnsubscribe } = config;
    const reader = createBodyReader(body);
    let closed = false;
    const onAbort = (): void => subscriber.error(new AbortedError('the body was aborted', { cause: signal?.reason }));
    if (signal?.aborted) {
      onAbort();
    } else {
      signal?.addEventListener('abort', onAbort, { once: true });
      void (async () => {
        try {
          for (;;) {
            while (demand !== undefined && !demand.isOpen && !closed) await demand.whenOpen();
            if (closed) return;
            const chunk = await reader.read();
            if (closed) return;
            if (chunk === undefined) return subscriber.complete();
            subscriber.next(chunk);
          }
        } catch (error) {
          if (!closed) subscriber.error(toTransportError(error, { midResponse: true })); // the response had started
        }
      })();
    }
    return () => {
      closed = true;
      signal?.removeEventListener('abort', onAbort);
      if (keepOnUnsubscribe?.() === true) reader.release();
      else reader.cancel();
    };
  });
}
