import type { ServerResponse } from 'node:http';
import type { Mono } from '../core/types.js';
import { JSON_WIRE } from '../wire/JSON_WIRE.js';
import type { WireFormat } from '../wire/WireFormat.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';
import { writeResponse, type WriteResponseConfig } from './writeResponse.js';

/** Options of {@link sendJson}: a demand gate is pointless for one value, heartbeats do not apply. */
export type SendJsonConfig = Pick<WriteResponseConfig, 'signal' | 'secrets' | 'onValue'>;

/**
 * Sends a Mono as the `/chat/json` response: one JSON object with `Content-Type: application/json` (the spec's,
 * exactly: RFC 8259 JSON is UTF-8 and defines no charset parameter). The text is `JSON_WIRE`'s.
 *
 * 1. The body is written when the Mono completes, so an error at any point gets a real HTTP status and the spec's
 *    `{"error":{"message","type","code"}}` body (status and `Retry-After` from `toErrorResponse`).
 * 2. A Mono that completes empty or emits twice is a programming error (status 500).
 * 3. If the client goes away first, the Mono is unsubscribed (the upstream request is aborted).
 *
 * ## Example
 * ```ts
 * http.createServer((req, res) => void sendJson(res, client.json(request)));
 * ```
 *
 * @param res - A fresh `ServerResponse` (Express's `res` is one).
 * @param mono - The one value to send.
 * @param config - Abort signal, secrets to redact.
 * @returns A promise of the {@link WriteOutcome}, settled when the response ended; it never rejects.
 */
export function sendJson<T>(res: ServerResponse, mono: Mono<T>, config: SendJsonConfig = {}): Promise<WriteOutcome> {
  return writeResponse(res, mono, JSON_WIRE as WireFormat<T>, config);
}
