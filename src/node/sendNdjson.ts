import type { ServerResponse } from 'node:http';
import type { Flux } from '../core/types.js';
import { NDJSON_WIRE } from '../wire/NDJSON_WIRE.js';
import type { WireFormat } from '../wire/WireFormat.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';
import { writeResponse, type WriteResponseConfig } from './writeResponse.js';

/** Options of {@link sendNdjson}. NDJSON has no comment syntax, so there is no heartbeat. */
export type SendNdjsonConfig = Omit<WriteResponseConfig, 'heartbeatMs'>;

/**
 * Streams a Flux as the `/chat/stream` response: one JSON object per line (`Transfer-Encoding: chunked`), written
 * by `NDJSON_WIRE` — the formatter of `toNdjson`, so the bytes are the operator's.
 *
 * 1. Headers (`Content-Type: application/json` as the spec lists it, `Cache-Control: no-cache, no-transform`,
 *    `Connection: keep-alive`, `X-Accel-Buffering: no`) are committed with the first line, or at the end of a Flux
 *    that completes empty (a 200 with an empty body and the same headers).
 * 2. An error before the first line: a real HTTP status and the body `{"error":{…},"done":true}\n`. After it: that
 *    line in-band, then the end of the response.
 * 3. Backpressure through `config.demand`; the client's disconnect unsubscribes (aborts the upstream request).
 *
 * ## Example
 * ```ts
 * const demand = createDemandGate();
 * await sendNdjson(res, client.stream(request, { demand }), { demand });
 * ```
 *
 * @param res - A fresh `ServerResponse` (Express's `res` is one).
 * @param flux - The values, one per line.
 * @param config - Demand gate, abort signal, secrets to redact.
 * @returns A promise of the {@link WriteOutcome}, settled when the response ended; it never rejects.
 */
export function sendNdjson<T>(res: ServerResponse, flux: Flux<T>, config: SendNdjsonConfig = {}): Promise<WriteOutcome> {
  return writeResponse(res, flux, NDJSON_WIRE as WireFormat<T>, config);
}
