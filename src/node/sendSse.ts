import type { ServerResponse } from 'node:http';
import type { Flux, ServerSentEvent } from '../core/types.js';
import { SSE_WIRE } from '../wire/SSE_WIRE.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';
import { writeResponse, type WriteResponseConfig } from './writeResponse.js';

/** Options of {@link sendSse}. */
export type SendSseConfig = WriteResponseConfig;

/**
 * Streams a Flux as the `/chat/sse` response, ended by `data: [DONE]`: a plain value (a string too) becomes one
 * `data: <json>` line; a `serverSentEvent({...})` is written with its fields (`event`, `id`, `retry`, `comment`, and a
 * string `data` as text lines, split on line breaks). The frames are `SSE_WIRE`'s — the formatter of `toSse`, so the
 * bytes are the operator's.
 *
 * 1. Headers (`Content-Type: text/event-stream` as the spec lists it, `Cache-Control: no-cache, no-transform`,
 *    `Connection: keep-alive`, `X-Accel-Buffering: no`) are committed with the first frame or the first heartbeat,
 *    or at the end of a Flux that completes empty (then the body is just `data: [DONE]`).
 * 2. An error before that: a real HTTP status with `event: error` + `data: [DONE]` as the body. After it: the same
 *    frames in-band, then the end of the response.
 * 3. A `: ping` comment after `heartbeatMs` (default 15 s) of silence, also before the first frame (a provider's queue
 *    phase), so proxies with idle cut-offs keep the stream.
 * 4. Backpressure through `config.demand`; the client's disconnect unsubscribes (aborts the upstream request).
 *
 * ## Example
 * ```ts
 * const demand = createDemandGate();
 * await sendSse(res, client.sse(request, { demand }), { demand, heartbeatMs: 10_000 });
 * ```
 *
 * @param res - A fresh `ServerResponse` (Express's `res` is one).
 * @param flux - The values or `ServerSentEvent`s (`client.sse()` gives the latter).
 * @param config - Demand gate, abort signal, secrets to redact, heartbeat interval.
 * @returns A promise of the {@link WriteOutcome}, settled when the response ended; it never rejects.
 */
export function sendSse<T>(res: ServerResponse, flux: Flux<T | ServerSentEvent<T>>, config: SendSseConfig = {}): Promise<WriteOutcome> {
  return writeResponse(res, flux, SSE_WIRE, config);
}
