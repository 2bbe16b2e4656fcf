import type { Readable } from 'node:stream';
import { Observable, type Subscription } from 'rxjs';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { AbortedError, ConfigError, StreamProtocolError, isNetworkError, isTimeoutError } from '../core/errors.js';
import type { ChatCompletionRequest } from '../core/schemas/index.js';
import { createDoneTracker } from './createDoneTracker.js';
import { drainBody } from './drainBody.js';
import { parseErrorBody } from './parseErrorBody.js';
import { readBodyText } from './readBodyText.js';
import { redactSecrets } from '../core/redactSecrets.js';
import { toTransportError } from './toTransportError.js';
import { toUpstreamHttpError } from './toUpstreamHttpError.js';
import { truncate } from '../core/truncate.js';
import { DEFAULT_TIMEOUTS } from './defaultTimeouts.js';
import type { DemandGate } from '../core/createDemandGate.js';
import { fromBody } from './fromBody.js';

/** Options of {@link requestCompletion}. */
export interface RequestCompletionConfig {
  /** The provider's base URL; the request goes to `{baseUrl}/chat/completions`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never appears in errors. Omit for servers without auth. */
  apiKey?: string;
  /** The undici dispatcher (an `Agent` per client: keep-alive, connection limit, connect timeout). Default: undici's global one. */
  dispatcher?: Dispatcher;
  /** Extra request headers (they win over the defaults). */
  headers?: Record<string, string>;
  /** The sink's demand gate, passed to {@link fromBody}. */
  demand?: DemandGate;
  /** Aborting it aborts the request and errors with an `AbortedError`. */
  signal?: AbortSignal;
  /**
   * undici deadlines for this request, in ms: `headers` (status line and headers; default `DEFAULT_TIMEOUTS.headers`, 30 000) and `body`
   * (between body bytes; default 0 = off, because chatflux's own first-chunk and idle timeouts govern the body).
   * `connect` only names the dispatcher's connect timeout in the `TimeoutError` it causes. `errorBody` bounds the
   * reading of a non-2xx (or non-SSE) body.
   */
  timeouts?: {
    /** The dispatcher's connect timeout, for the error message only (default 10 000). */
    connect?: number;
    /** Status line and headers (default `DEFAULT_TIMEOUTS.headers`, 30 000). */
    headers?: number;
    /** Between body bytes (default 0: off). */
    body?: number;
    /** Reading an error body (default 5 000); when it runs out, the error is built from what arrived. */
    errorBody?: number;
  };
  /** More literal secrets to scrub from error messages (the API key always is). */
  secrets?: readonly string[];
  /** The most of an error body that is read (default 64 KiB); the rest is discarded. */
  maxErrorBodyBytes?: number;
}

const EXAMPLE = "requestCompletion(request, { baseUrl: 'https://api.deepseek.com', apiKey })";

/** Refuses a config without a usable `baseUrl` at the call, with the call that works (instead of a TypeError later). */
function checkConfig(config: RequestCompletionConfig): void {
  if (typeof config !== 'object' || config === null) {
    throw new ConfigError(`requestCompletion: the second argument must be a config object with the provider's baseUrl, e.g. ${EXAMPLE}.`);
  }
  const { baseUrl } = config as { baseUrl?: unknown };
  if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]/i.test(baseUrl.trim())) {
    throw new ConfigError(
      `requestCompletion: config.baseUrl must be the provider's http(s) base URL (the request goes to {baseUrl}/chat/completions), got ${
        baseUrl === undefined ? 'none' : JSON.stringify(baseUrl)
      }; e.g. ${EXAMPLE}, or use createChatClient({ provider: 'deepseek' }), which knows the presets' URLs.`,
    );
  }
}

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * POSTs a streaming chat completion and emits the raw bytes of its `text/event-stream` body.
 *
 * ```text
 * subscribe:          ^
 * POST ……………………… 200 text/event-stream
 * requestCompletion:  -------[b1]--[b2]---[b3]|
 * unsubscribe:        ^---------!          (the request is aborted, the socket closed)
 * 429 / 5xx:          -------#              (UpstreamHttpError: status, provider message, retryAfterMs)
 * ```
 *
 * 1. Cold: every subscription sends one request with its own `AbortController`; teardown aborts it.
 * 2. The body sent is `request` with `stream: true` and `stream_options.include_usage: true`; headers
 *    `Authorization: Bearer <apiKey>`, `Accept: text/event-stream`, `Content-Type: application/json`.
 * 3. Non-2xx → `UpstreamHttpError` (status, the parsed DeepSeek/Moonshot error body or a truncated HTML page,
 *    `retryAfterMs`); the error body is read up to `maxErrorBodyBytes` and for at most `timeouts.errorBody`
 *    (so a stalled 5xx is still reported as itself, promptly), then the body is destroyed.
 * 4. 2xx with a content type other than `text/event-stream` → `StreamProtocolError('unexpected_content_type')`,
 *    with the provider's message when the body is a JSON error.
 * 5. Transport failures → `NetworkError` (cause attached); undici's connect/headers deadlines → `TimeoutError`.
 * 6. `config.signal` aborted → `AbortedError`; `config.demand` paces the reading of the body.
 * 7. Keep-alive after `[DONE]`: `decodeChunk` unsubscribes at `data: [DONE]`, usually before the body's end has
 *    arrived. When the bytes emitted last end with a `data: [DONE]` line and a blank line (LF, CR or CRLF), teardown
 *    does not abort: the rest of the body is read and discarded (at most 16 KiB, for at most 1 s) so that undici
 *    keeps the connection for the next request; past those limits the request is aborted. Every other teardown
 *    (mid-stream, idle, before the headers) aborts at once. The check costs O(1) per chunk (it keeps the last 32
 *    bytes); an event with more lines after `data: [DONE]` is not recognised and is aborted, which is always safe.
 *
 * ## Example
 * ```ts
 * requestCompletion({ model: 'deepseek-chat', messages }, { baseUrl: 'https://api.deepseek.com', apiKey })
 *   .pipe(parseSse(), decodeChunk())
 *   .subscribe((chunk) => console.log(chunk.choices[0]?.delta?.content));
 * ```
 *
 * @param request - The chat completion request (already validated).
 * @param config - Where and how to send it.
 * @returns A cold Observable of the response body's bytes.
 * @throws ConfigError at the call when `config` has no http(s) `baseUrl`, saying how to fix the call.
 */
export function requestCompletion(
  request: ChatCompletionRequest,
  config: RequestCompletionConfig,
): Observable<Uint8Array> {
  checkConfig(config);
  return new Observable<Uint8Array>((subscriber) => {
    const secrets = [...(config.apiKey === undefined ? [] : [config.apiKey]), ...(config.secrets ?? [])];
    const timeouts = config.timeouts ?? {};
    const errorBodyMs = timeouts.errorBody ?? DEFAULT_TIMEOUTS.errorBody;
    const controller = new AbortController();
    const outer = config.signal;
    let inner: Subscription | undefined;
    let closed = false;
    const done = createDoneTracker();
    let finishing: Readable | undefined; // the body of an answer that is complete at teardown, to drain
    const onAbort = (): void => subscriber.error(new AbortedError('the request was aborted', { cause: outer?.reason }));
    if (outer?.aborted) {
      onAbort();
      return;
    }
    outer?.addEventListener('abort', onAbort, { once: true });
    const body = JSON.stringify({
      ...request,
      stream: true,
      stream_options: { ...request.stream_options, include_usage: true },
    });
    const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    void undiciRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(config.apiKey === undefined || config.apiKey === '' ? {} : { authorization: `Bearer ${config.apiKey}` }),
        ...config.headers,
      },
      body,
      signal: controller.signal,
      headersTimeout: timeouts.headers ?? DEFAULT_TIMEOUTS.headers,
      bodyTimeout: timeouts.body ?? 0,
      ...(config.dispatcher === undefined ? {} : { dispatcher: config.dispatcher }),
    })
      .then(
        async (response) => {
          if (closed) return void response.body.destroy();
          const contentType = header(response.headers, 'content-type');
          if (response.statusCode < 200 || response.statusCode > 299) {
            const text = await readBodyText(response.body, config.maxErrorBodyBytes, errorBodyMs);
            return subscriber.error(
              toUpstreamHttpError({ status: response.statusCode, headers: response.headers, body: text }, secrets),
            );
          }
          if (contentType !== undefined && !/^\s*text\/event-stream\b/i.test(contentType)) {
            const text = await readBodyText(response.body, config.maxErrorBodyBytes, errorBodyMs);
            const detail = parseErrorBody(text)?.message;
            // Redacted before cut (a cut first can leave most of a key that no rule recognises any more).
            const type = truncate(redactSecrets(contentType, secrets), 100);
            const message = `upstream answered ${response.statusCode} with content type ${type}, not text/event-stream${detail === undefined ? '' : `: ${detail}`}`;
            return subscriber.error(
              new StreamProtocolError('unexpected_content_type', redactSecrets(message, secrets), {
                snippet: truncate(redactSecrets(text, secrets)),
              }),
            );
          }
          let ended = false;
          const keepOnUnsubscribe = (): boolean => {
            if (ended || controller.signal.aborted || !done.endsWithDone()) return false;
            finishing = response.body;
            return true;
          };
          inner = fromBody(response.body, {
            keepOnUnsubscribe,
            ...(config.demand === undefined ? {} : { demand: config.demand }),
          }).subscribe({
            next: (chunk) => {
              done.push(chunk); // before emitting: decodeChunk tears down synchronously at [DONE]
              subscriber.next(chunk);
            },
            // fromBody maps a transport failure of a read without this request's context: mapped again from its
            // cause, the body deadline is named with its value (not 0 ms) and the message is scrubbed of the key.
            // Its other errors (an abort) pass as they are.
            error: (error: unknown) =>
              subscriber.error(
                toTransportError((isNetworkError(error) || isTimeoutError(error)) && error.cause !== undefined ? error.cause : error, {
                  secrets,
                  bodyTimeoutMs: timeouts.body ?? 0,
                  midResponse: true,
                }),
              ),
            complete: () => {
              ended = true;
              subscriber.complete();
            },
          });
          if (closed) inner.unsubscribe();
        },
        (error: unknown) => {
          if (closed) return;
          subscriber.error(
            toTransportError(error, {
              secrets,
              connectTimeoutMs: timeouts.connect ?? DEFAULT_TIMEOUTS.connect,
              headersTimeoutMs: timeouts.headers ?? DEFAULT_TIMEOUTS.headers,
            }),
          );
        },
      )
      .catch((error: unknown) => subscriber.error(toTransportError(error, { secrets })));
    return () => {
      closed = true;
      outer?.removeEventListener('abort', onAbort);
      inner?.unsubscribe(); // asks keepOnUnsubscribe, which sets `finishing` for a complete answer
      if (finishing === undefined) return controller.abort();
      drainBody(finishing, { maxBytes: 16 * 1024, timeoutMs: 1000, onGiveUp: () => controller.abort() });
    };
  });
}
