import { EVENT_SOURCE_IDS } from './EVENT_SOURCE_IDS.js';
import { formatSseEvent } from './formatSseEvent.js';
import { SSE_WIRE } from './SSE_WIRE.js';
import type { WireFormat } from './WireFormat.js';

/**
 * How long a finished `EventSource` waits before it reconnects, in ms (a day): the `retry:` of the final frame. Below
 * 2^31 ms, so that a client's `setTimeout` (the `eventsource` package's) waits it rather than firing at once.
 */
const FINISHED_RETRY_MS = 86_400_000;

/** `id: done`, `retry: 86400000`, `data: [DONE]`: the end, and "do not come back". */
const FINISHED = formatSseEvent({ id: EVENT_SOURCE_IDS.finished, retry: FINISHED_RETRY_MS, data: '[DONE]' });

/**
 * The wire of `GET /chat/sse` (a browser's `EventSource`): `SSE_WIRE`'s frames, whose final `data: [DONE]` also tells
 * the `EventSource` not to reconnect. An `EventSource` reconnects whenever its response ends — about 3 s later, with
 * the same URL — and the gateway would answer the whole request again (an upstream call each time).
 *
 * ```text
 * a value, a heartbeat      as SSE_WIRE
 * the end (trailer)         id: done\nretry: 86400000\ndata: [DONE]\n\n
 * an error, in-band         event: error\ndata: {"message","type","code"}\n\n   then the same final frame
 * an error, before 200      as SSE_WIRE (its status already stops an EventSource)
 * ```
 *
 * The final frame's `retry:` puts its reconnect a day away; its `id:` comes back as `Last-Event-ID` when it does, and
 * the serving core answers that request 204, which stops the `EventSource` for good (see `EVENT_SOURCE_IDS`).
 * `POST /chat/sse` (not an `EventSource`) keeps `SSE_WIRE`'s bytes.
 */
export const EVENT_SOURCE_WIRE: WireFormat<unknown> = {
  ...SSE_WIRE,
  trailer: FINISHED,
  // SSE_WIRE's in-band error is its error frame then its trailer: the same error frame, then this wire's trailer.
  encodeError: (body) => `${SSE_WIRE.encodeError(body).slice(0, -SSE_WIRE.trailer.length)}${FINISHED}`,
  errorResponse: SSE_WIRE,
};
