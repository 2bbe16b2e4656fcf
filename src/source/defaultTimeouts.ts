/** The deadlines of an upstream request, in milliseconds. An omitted one takes its default (`DEFAULT_TIMEOUTS`); `0` turns it off. */
export interface TimeoutsConfig {
  /** TCP (+TLS) connection establishment. Enforced by the client's undici `Agent`. */
  connect?: number;
  /** From the request sent to the response's status line and headers. */
  headers?: number;
  /** From subscription to the first data chunk (keep-alive comments do not count). */
  firstChunk?: number;
  /**
   * Before the first data chunk: the longest stretch without a sign of life from the provider — an SSE comment such as
   * `: keep-alive` (its headers, and bytes of anything else, do not count) — from the request's start (a wait for a
   * free connection does not count). A provider
   * that sends nothing is given up after it; one that queues and says so with keep-alive comments is waited for until
   * `firstChunk`. A `TimeoutError('first_chunk')`.
   */
  silence?: number;
  /** Between two data chunks after the first (keep-alive comments do not reset it). */
  idle?: number;
  /** The whole answer of one attempt, from subscription to the end. Off by default; for a deadline across retries pass an `AbortSignal`, or set `json` for `client.json()`. */
  total?: number;
  /** The whole of a `client.json()` call: every attempt and the waits between them (a `TimeoutError('total')`, not retried). Off by default. */
  json?: number;
  /** Reading the body of an upstream error response (non-2xx, or a 2xx that is not SSE); when it runs out the error is built from what arrived. */
  errorBody?: number;
  /**
   * The time budget of the whole call, from its start: once spent no retry starts, and a retry whose wait would end
   * past it is not waited for — the failure surfaces. An attempt under way keeps its own deadlines, so a call that
   * never gets an answer going ends within `deadline` plus one attempt's `headers`/`silence`.
   */
  deadline?: number;
}

/**
 * The default deadlines.
 *
 * | deadline | default | why |
 * |---|---|---|
 * | `connect` | 10 s | a healthy API connects in well under a second even across continents; 10 s covers two SYN retransmits (1 s, 3 s) and a slow TLS handshake, and is undici's own default |
 * | `headers` | 30 s | a provider answers a request it accepted with its headers at once, then queues it saying so (`: keep-alive`); one that has not even sent headers in 30 s is not coming (the 600 s of old held a client 130 s). Not retried by default (`DEFAULT_RETRY_POLICY.timeoutPhases`): the request was sent, a retry would queue it again |
 * | `silence` | 30 s | the same bound for a provider that sent its headers and then nothing: no keep-alive comment and no chunk for 30 s is not a queue. Not retried, as `headers` |
 * | `firstChunk` | 600 s | DeepSeek queues a request for minutes under load (sending `: keep-alive` comments) and gives up itself after about ten; we should not give up earlier on a provider that says it is queuing |
 * | `idle` | 60 s | once tokens flow they arrive every few tens of ms; a minute of silence mid-answer is a stall (DeepSeek does stall with the socket open), not thinking (reasoning is streamed too) |
 * | `total` | off | a long answer at 20 tokens/s legitimately runs for many minutes; callers who need a deadline pass an `AbortSignal` or set it |
 * | `json` | off | as `total`, for the whole of a `json()` call (retries included): a server holding answers whole may set one (the gateway's `CHATFLUX_JSON_TIMEOUT_MS`) |
 * | `errorBody` | 5 s | an error body is a few hundred bytes sent at once; one that stalls must not turn a 503 into a first-chunk timeout |
 * | `deadline` | 60 s | a healthy answer starts within seconds; a minute of failed attempts is an outage, not a blip: a retry after it only adds load and delay. With `headers`/`silence` a provider that sends nothing, or hangs up without a word, frees its caller within 60 + 30 s |
 */
export const DEFAULT_TIMEOUTS: Readonly<Required<Omit<TimeoutsConfig, 'total' | 'json'>>> & Pick<TimeoutsConfig, 'total' | 'json'> =
  Object.freeze({
    connect: 10_000,
    headers: 30_000,
    silence: 30_000,
    firstChunk: 600_000,
    idle: 60_000,
    errorBody: 5_000,
    deadline: 60_000,
  });
