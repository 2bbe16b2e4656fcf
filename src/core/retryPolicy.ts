import type { TimeoutPhase } from './errors.js';

/** The retry policy of `retryOnTransient`, as data. Every field has a documented default in {@link DEFAULT_RETRY_POLICY}. */
export interface RetryPolicy {
  /** How many times to retry after the first attempt (so `count + 1` requests at most). */
  count: number;
  /** The backoff before retry n (1-based) is `random() * min(maxDelayMs, baseDelayMs * 2^(n-1))` (full jitter). */
  baseDelayMs: number;
  /** The cap of the exponential backoff. */
  maxDelayMs: number;
  /** No wait is shorter, a server's hint included (`Retry-After: 0` waits this long). */
  minDelayMs: number;
  /** A server hint (`retry-after-ms`, `Retry-After`, "try again after N s") is obeyed up to this; a longer one is not retried. */
  maxRetryAfterMs: number;
  /** HTTP statuses that are transient. */
  statuses: readonly number[];
  /** HTTP statuses that are never retried, whatever else the error says. */
  neverStatuses: readonly number[];
  /** Provider error `type`s meaning "overloaded, try later" (on an HTTP error or an in-band stream error). */
  upstreamTypes: readonly string[];
  /** Provider error `type`s or `code`s that are never retried, whatever the status (a quota that waiting will not refill). */
  neverUpstreamTypes: readonly string[];
  /** Timeout phases that are retried. */
  timeoutPhases: readonly TimeoutPhase[];
  /** Finish reasons that fail an answer (`AnswerFailedError`) because the server ran out of capacity. */
  finishReasons: readonly string[];
}

/**
 * The default retry policy.
 *
 * | field | default | why |
 * |---|---|---|
 * | `count` | 2 | three attempts in all: rides out a blip or a short overload without multiplying a real outage's load |
 * | `baseDelayMs` | 500 | a reset or 502 usually clears within a second; full jitter spreads a burst of clients |
 * | `maxDelayMs` | 8 000 | keeps a caller's total wait (≤ 8 s + hints) well under a typical 60 s proxy deadline |
 * | `minDelayMs` | 200 | a `Retry-After: 0` (or a jitter near 0) must not turn the retries into a burst against a server that just failed |
 * | `maxRetryAfterMs` | 60 000 | a hint up to a minute is worth obeying; a longer one means "come back later": surface it |
 * | `statuses` | 408 409 429 500 502 503 504 | timeouts, conflicts, rate limits, server/gateway failures (DeepSeek 503 = overloaded) |
 * | `neverStatuses` | 400 401 402 403 404 422 | the request, the key or the balance is wrong: a retry cannot help |
 * | `upstreamTypes` | `engine_overloaded_error`, `rate_limit_reached_error`, `overloaded_error`, `server_overloaded` | Moonshot's and other providers' overload types, also when sent in-band |
 * | `neverUpstreamTypes` | `exceeded_current_quota_error`, `insufficient_quota` | Moonshot's and OpenAI-style "quota used up" (sent with a 429 or 403, as `type` or `code`): waiting does not refill it, a retry only adds load and delay |
 * | `timeoutPhases` | `connect` | nothing was sent yet. Not `headers`: the request was sent and a queueing provider (DeepSeek sends nothing for over 100 s) may hold it, a retry would re-queue it; nor `first_chunk`: the provider accepted and queued the request, a retry would re-queue it and double the wait |
 * | `finishReasons` | `insufficient_system_resource` | DeepSeek ran out of capacity; only reachable when nothing was emitted (the `json` result) |
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  count: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  minDelayMs: 200,
  maxRetryAfterMs: 60_000,
  statuses: Object.freeze([408, 409, 429, 500, 502, 503, 504]),
  neverStatuses: Object.freeze([400, 401, 402, 403, 404, 422]),
  upstreamTypes: Object.freeze([
    'engine_overloaded_error',
    'rate_limit_reached_error',
    'overloaded_error',
    'server_overloaded',
  ]),
  neverUpstreamTypes: Object.freeze(['exceeded_current_quota_error', 'insufficient_quota']),
  timeoutPhases: Object.freeze(['connect'] as const),
  finishReasons: Object.freeze(['insufficient_system_resource']),
});
