import type { ErrorBody } from '../core/schemas/index.js';

/**
 * How one endpoint puts values on the wire: the part that differs between `sendJson`, `sendNdjson` and `sendSse`.
 * Everything else (lazy commit, errors, backpressure, disconnects, heartbeats) is `writeResponse`'s.
 */
export interface WireFormat<T> {
  /** The headers of the response, committed lazily with status 200 — or with an error status before the commit. */
  headers: Readonly<Record<string, string>>;
  /** `true`: each value is written when it arrives; `false`: the one value is written at completion (a Mono). */
  streaming: boolean;
  /** One value as text (a JSON object, an NDJSON line, an SSE frame). */
  encode(value: T): string;
  /** Written after the last value when the source completes (`data: [DONE]\n\n` for SSE). */
  trailer: string;
  /** The endpoint's error format, used as the body before the commit and in-band after it. */
  encodeError(body: ErrorBody): string;
  /** The keep-alive text (`: ping\n\n`), when the format has one. */
  heartbeat?: string;
  /**
   * The headers and body of an error answered before the commit, when they differ from this format's (OpenAI's
   * stream answers them as JSON with `application/json`, in-band as an SSE frame); default: `headers` and
   * `encodeError`.
   */
  errorResponse?: Pick<WireFormat<unknown>, 'headers' | 'encodeError'>;
}
