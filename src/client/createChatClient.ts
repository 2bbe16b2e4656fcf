import { inspect } from 'node:util';
import { asyncScheduler, defer, map, Observable } from 'rxjs';
import { Agent, type Dispatcher } from 'undici';
import { ConfigError } from '../core/errors.js';
import { durationMs } from '../core/durationMs.js';
import { createCallGate } from './createCallGate.js';
import { DEFAULT_POOL } from './DEFAULT_POOL.js';
import { createConnectionSlots } from './createConnectionSlots.js';
import { createRouteBudget } from './createRouteBudget.js';
import { withConnectionSlot } from './withConnectionSlot.js';
import type { RequestLimitsConfig } from '../core/requestLimits.js';
import { resolveRequestLimits } from '../core/resolveRequestLimits.js';
import { resolveProvider } from './resolveProvider.js';
import { toCompletionRequest } from './toCompletionRequest.js';
import { chunkTimeouts } from '../operators/chunkTimeouts.js';
import { decodeChunk } from '../operators/decodeChunk.js';
import { parseSse } from '../operators/parseSse.js';
import { retryOnTransient, type RetryEvent, type RetryOnTransientConfig } from '../operators/retryOnTransient.js';
import { DEFAULT_MAX_ANSWER_CHARS } from '../operators/defaultMaxAnswerChars.js';
import { toOutput } from '../operators/toOutput.js';
import { toOutputChunks } from '../operators/toOutputChunks.js';
import type {
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatRequest,
  LlmClientOutput,
  LlmClientOutputChunk,
} from '../core/schemas/index.js';
import { serverSentEvent } from '../core/serverSentEvent.js';
import type { DemandGate } from '../core/createDemandGate.js';
import { requestCompletion } from '../source/requestCompletion.js';
import type { Flux, Mono, ServerSentEvent } from '../core/types.js';
import { DEFAULT_TIMEOUTS, type TimeoutsConfig } from '../source/defaultTimeouts.js';
import type { ProviderName } from './providers.js';
import { genAiProviderName } from './genAiProviderName.js';
import type { TelemetryConfig } from '../telemetry/TelemetryConfig.js';
import { createCompletionTelemetry } from '../telemetry/createCompletionTelemetry.js';
import { knownModels } from '../telemetry/knownModels.js';
import type { CompletionCall } from '../telemetry/CompletionCall.js';
import { traceCall } from '../telemetry/traceCall.js';
import { watchAttempt } from '../telemetry/watchAttempt.js';

/** Options of {@link createChatClient}. */
export interface ChatClientConfig {
  /** A preset for `baseUrl`, `model` and the API key's env var (default `openai-compatible`). */
  provider?: ProviderName;
  /** The API's base URL; required for `openai-compatible`, else the preset's. */
  baseUrl?: string;
  /** The API key; default: the preset's env var (`MOONSHOT_API_KEY`, `DEEPSEEK_API_KEY`). Never logged or serialised. */
  apiKey?: string;
  /** The model used when a request names none; default: the preset's. */
  model?: string;
  /** Retry policy overrides (see `DEFAULT_RETRY_POLICY`), a retry count, or `false` for none. */
  retry?: RetryOnTransientConfig | number | false;
  /** Deadlines in ms (see `DEFAULT_TIMEOUTS`); `0` (or `Infinity`) turns one off, an omitted or `undefined` one takes its default. */
  timeouts?: TimeoutsConfig;
  /** An undici dispatcher to use instead of the client's own `Agent` (then `connections` and `timeouts.connect` are its business, and `close()` leaves it open). */
  dispatcher?: Dispatcher;
  /** The most connections the client's `Agent` opens per origin (default 128: one per concurrent streamed answer). */
  connections?: number;
  /**
   * How long a request waits for one of the client's `connections` to free up, in ms (default 10 000). Past it the
   * request errors with `CapacityError('upstream_busy')` — a 503 with `Retry-After` for a client of the gateway —
   * instead of queueing silently behind slow answers. `Infinity`: wait as long as it takes (batch jobs that queue on
   * purpose); `0`: never wait. Only for the client's own `Agent` (a `dispatcher` you pass queues as it does).
   */
  connectionWaitMs?: number;
  /**
   * The most a `json()` answer may hold (characters of its text, reasoning, tool calls and log probabilities; default
   * `DEFAULT_MAX_ANSWER_CHARS`, 16 Mi; `0`: no cap). Past it the call errors with `StreamProtocolError('answer_too_large')`
   * (a 502 `answer_too_large` for a client of the gateway) and the upstream request is aborted.
   */
  maxAnswerChars?: number;
  /** Bounds checked before a request is validated (messages, nesting, values, characters, issues reported); see `DEFAULT_REQUEST_LIMITS`. */
  requestLimits?: RequestLimitsConfig;
  /** Extra headers on every upstream request. */
  headers?: Record<string, string>;
  /** More literal secrets to scrub from error messages (e.g. a key inside `headers`). */
  secrets?: readonly string[];
  /** Where env vars are read (default `process.env`). */
  env?: Record<string, string | undefined>;
  /**
   * Only `data: [DONE]` ends an answer (default `false`: a stream that ends after every `finish_reason` is complete
   * too, as some providers never send `[DONE]`). See `decodeChunk({ requireDone })`.
   */
  requireDone?: boolean;
  /**
   * OpenTelemetry (optional peer `@opentelemetry/api`): one `chat {model}` span per call and the `gen_ai.client.*`
   * metrics, to the global providers unless others are given; message content only with `captureContent`. Without
   * a registered provider nothing is recorded. `false`: off. See README "Observability". The metrics name the
   * client's `model` and `telemetry.models` only (any other model is `other`); spans are scrubbed of the API key.
   */
  telemetry?: TelemetryConfig | false;
}

/** Per-call options of a {@link ChatClient} method. */
export interface ChatCallOptions {
  /** The sink's demand gate: while closed, the upstream body is not read. */
  demand?: DemandGate;
  /** Aborting it aborts the request, or ends a wait between retries, at once (`AbortedError`, never retried). */
  signal?: AbortSignal;
  /**
   * The caller can take a restart (a route's `stream()` and `sse()`; the gateway sets it for a request carrying
   * `Chatflux-Accept-Restart: true`): an answer cut after text was delivered that no target can continue starts again,
   * announced by a chunk with `restart` (`/chat/sse`: `event: restart`), instead of ending with the cut's error. A
   * route's `json()` restarts whatever this says (nothing reached its caller); a plain client ignores it.
   */
  acceptRestart?: boolean;
  /**
   * Who the call is for: an opaque, bounded id such as a hashed API key (the node core and the web handlers pass the
   * client a request was admitted as, a token's key for `GET /chat/sse?token=…`, when they can tell clients apart).
   * A route's circuit breakers count failures against a target only once they come from several callers
   * (`distinctCallers`), so that one client's requests cannot open them for everyone. Never sent upstream.
   */
  caller?: string;
}

/** A chat request: the downstream `ChatRequest` (model optional) or a full upstream `ChatCompletionRequest`. */
export type ChatClientRequest = ChatRequest | ChatCompletionRequest;

/** A client of one OpenAI-compatible provider, returning the four results of the downstream contract. */
export interface ChatClient {
  /** The provider preset in use. */
  readonly provider: ProviderName;
  /** The base URL requests go to. */
  readonly baseUrl: string;
  /** The default model, if any. */
  readonly model: string | undefined;
  /** The client's own connection pool now (connections in use, requests waiting for one); absent with your `dispatcher`. */
  readonly pool?: {
    /** Connections in use now. */
    readonly inUse: number;
    /** Requests waiting for a connection now. */
    readonly waiting: number;
  };
  /** The upstream chunks, retried only before the first one. */
  chunks(request: ChatClientRequest, options?: ChatCallOptions): Flux<ChatCompletionChunk>;
  /** The whole answer as one value; a transient failure anywhere in the stream is retried (nothing reached the caller). */
  json(request: ChatClientRequest, options?: ChatCallOptions): Mono<LlmClientOutput>;
  /** The contract's chunks (`/chat/stream`), retried only before the first one. */
  stream(request: ChatClientRequest, options?: ChatCallOptions): Flux<LlmClientOutputChunk>;
  /** The contract's chunks as `ServerSentEvent`s (`/chat/sse`), for `toSse()`. */
  sse(request: ChatClientRequest, options?: ChatCallOptions): Flux<ServerSentEvent<LlmClientOutputChunk>>;
  /**
   * Closes the client's own connection pool (a `dispatcher` you passed in stays open). Requests in flight get
   * `graceMs` (default 0) to finish, then are aborted. Later calls error with a `ConfigError` at once.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Creates a {@link ChatClient} for Moonshot (Kimi), DeepSeek or any OpenAI-compatible `/chat/completions`.
 *
 * Every method is cold: each subscription validates the request (zod; `RequestError('invalid_request')` before
 * anything is sent), then runs `requestCompletion → parseSse → decodeChunk → chunkTimeouts → retryOnTransient`.
 * `json` retries around the whole answer (`… → toOutput → retryOnTransient`), holds at most `maxAnswerChars` of it
 * and, with `timeouts.json`, ends within that deadline; `stream`/`sse` retry until their first chunk
 * (`… → toOutputChunks → retryOnTransient`). Unsubscribing aborts the request at once.
 *
 * ## Example
 * ```ts
 * const client = createChatClient({ provider: 'deepseek' }); // key from DEEPSEEK_API_KEY
 * client.stream({ messages: [{ role: 'user', content: '你好' }] }).subscribe((c) => process.stdout.write(c.message.content));
 * ```
 *
 * @param config - The provider, its URL, key and default model, the retry policy and the deadlines.
 * @returns The client. Its `toString`, `toJSON` and `util.inspect` never show the API key.
 * @throws ConfigError for a bad setting (`connections`, `connectionWaitMs`, a deadline that is not a number of ms ≥ 0,
 *   the retry policy, the request limits, …), saying how to fix it.
 */
export function createChatClient(config: ChatClientConfig): ChatClient {
  const { provider, baseUrl, apiKey, model } = resolveProvider(config);
  // An undefined deadline takes its default (a spread would replace the default by none); a bad one is refused now,
  // not turned off silently (`Number(process.env.UNSET)` is NaN) or left to fail every call in undici.
  const given: TimeoutsConfig = {};
  for (const [key, value] of Object.entries(config.timeouts ?? {}) as [keyof TimeoutsConfig, unknown][]) {
    if (value !== undefined) given[key] = durationMs(`createChatClient: \`timeouts.${key}\``, value, 0);
  }
  const timeouts = { ...DEFAULT_TIMEOUTS, ...given };
  const connections = config.connections ?? DEFAULT_POOL.connections;
  const connectionWaitMs = config.connectionWaitMs ?? DEFAULT_POOL.connectionWaitMs;
  if (!Number.isInteger(connections) || connections < 1) {
    throw new ConfigError(
      `createChatClient: \`connections\` must be a positive integer, got ${String(connections)}; omit it for ${DEFAULT_POOL.connections}.`,
    );
  }
  if (!(connectionWaitMs >= 0)) {
    throw new ConfigError(
      `createChatClient: \`connectionWaitMs\` must be a number of ms from 0 (never wait) to Infinity (no limit), got ${String(connectionWaitMs)}; omit it for ${DEFAULT_POOL.connectionWaitMs}.`,
    );
  }
  const owned = config.dispatcher === undefined;
  // One slot per connection of our own pool: a request learns how long it waits instead of queueing inside undici.
  const slots = owned ? createConnectionSlots(connections, connectionWaitMs) : undefined;
  const dispatcher =
    config.dispatcher ??
    new Agent({
      connections,
      connect: { timeout: timeouts.connect },
      headersTimeout: timeouts.headers,
      bodyTimeout: 0,
    });
  const requestLimits = resolveRequestLimits(config.requestLimits); // a wrong limit is a ConfigError now
  const answer = toOutput({ maxAnswerChars: config.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS }); // likewise
  const secrets = config.secrets ?? [];
  const requireDone = config.requireDone ?? false;
  decodeChunk({ requireDone }); // a wrong value is a ConfigError now, not at the first request
  // What an upstream's own error text must never carry back: the key it was sent, whatever its shape.
  const inBandSecrets = apiKey === undefined ? secrets : [apiKey, ...secrets];
  const retryConfig: RetryOnTransientConfig =
    config.retry === false
      ? { count: 0 }
      : typeof config.retry === 'number'
        ? { count: config.retry }
        : (config.retry ?? {});
  retryOnTransient(retryConfig); // a wrong policy is a ConfigError now, not at the first request
  const calls = createCallGate('this chat client was closed; create a new one with createChatClient().');
  // Telemetry: a span per call around the retries (traced), each attempt reported to it (watchAttempt).
  // Its metrics name the client's model and the configured ones only (else `other`); its spans are scrubbed of the key.
  const telemetry =
    config.telemetry === false
      ? undefined
      : createCompletionTelemetry({
          providerName: genAiProviderName(provider),
          ...config.telemetry,
          models: knownModels(config.telemetry?.models, [model]),
          secrets: [...inBandSecrets, ...(config.telemetry?.secrets ?? [])],
        });
  const traced = <T>(request: ChatClientRequest, stream: boolean, run: (call: CompletionCall | undefined) => Observable<T>): Observable<T> =>
    traceCall(telemetry, () => ({ providerName: genAiProviderName(provider), model: request.model ?? model, baseUrl, request, stream }), run);

  const pipelineOf = (
    options: ChatCallOptions,
    body: ReturnType<typeof toCompletionRequest>,
    call: CompletionCall | undefined,
  ): Observable<ChatCompletionChunk> => {
    const traceHeaders = call?.headers();
    const headers = traceHeaders === undefined ? config.headers : { ...config.headers, ...traceHeaders };
    // The time the request went out (once a connection slot was granted: a wait for one is not the provider's silence),
    // then of the provider's latest SSE comment (`: keep-alive`): its signs of life before the first chunk. Recorded
    // only with a silence deadline, and never per data chunk (the parser tells of comments; nothing runs per chunk).
    let alive: number | undefined;
    const sign = (): void => void (alive = asyncScheduler.now());
    const watched = timeouts.silence > 0 && Number.isFinite(timeouts.silence);
    const upstream = requestCompletion(body, {
      baseUrl,
      dispatcher,
      secrets,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(headers === undefined ? {} : { headers }),
      ...(options.demand === undefined ? {} : { demand: options.demand }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      timeouts: { connect: timeouts.connect, headers: timeouts.headers, body: 0, errorBody: timeouts.errorBody },
    });
    // The parser and decoder are subscribed once a connection slot is granted: a request waiting in the queue holds
    // none of their state (both pass the slot's errors through untouched, so nothing else changes).
    const parsed = watched ? defer(() => (sign(), upstream)).pipe(parseSse({ onComment: sign })) : upstream.pipe(parseSse());
    const decoded = parsed.pipe(
      // requestCompletion always asks for usage (stream_options.include_usage): an answer ended without [DONE]
      // before its usage says so (usage_missing) instead of silently lacking it.
      decodeChunk({ secrets: inBandSecrets, requireDone, usageRequested: true }),
    );
    return withConnectionSlot(decoded, slots, {
      connections,
      waitMs: connectionWaitMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    }).pipe(
      chunkTimeouts<ChatCompletionChunk>({
        firstChunk: timeouts.firstChunk,
        silence: timeouts.silence,
        alive: () => alive ?? asyncScheduler.now(), // not sent yet: no silence
        idle: timeouts.idle,
        ...(timeouts.total === undefined ? {} : { total: timeouts.total }),
        ...(options.demand === undefined ? {} : { demand: options.demand }),
      }),
      // Telemetry's view of each attempt (no operator at all when no provider records).
      watchAttempt(call),
    );
  };
  const chunksOf = (request: ChatClientRequest, options: ChatCallOptions = {}, call?: CompletionCall): Observable<ChatCompletionChunk> =>
    new Observable<ChatCompletionChunk>((subscriber) => {
      // The subscriber is passed on as it is (no `defer` + `finalize` hops per chunk). A throw here errors it.
      const body = toCompletionRequest(request, model, requestLimits);
      pipelineOf(options, body, call).subscribe(subscriber);
    });
  // The call's signal also ends a retry wait (a 5 s Retry-After must not delay an abort); no retry starts, or is
  // waited for, past the call's deadline. Called at each subscription: the deadline runs from the call's start.
  const retried = <T>(source: Observable<T>, signal: AbortSignal | undefined): Observable<T> => {
    const budget = createRouteBudget({ deadlineMs: timeouts.deadline }); // the count is the retry policy's
    const ownCheck = retryConfig.shouldRetry;
    const shouldRetry = (event: RetryEvent): boolean => budget.allows(event.delayMs) && (ownCheck?.(event) ?? true);
    return source.pipe(retryOnTransient<T>({ ...retryConfig, shouldRetry, ...(signal === undefined ? {} : { signal }) }));
  };

  const client: ChatClient = {
    provider,
    baseUrl,
    model,
    ...(slots === undefined ? {} : { pool: slots }),
    chunks: (request, options) =>
      calls.track(() => traced(request, true, (call) => retried(chunksOf(request, options, call), options?.signal))),
    json: (request, options) =>
      calls.track(() =>
        traced(request, false, (call) => {
          const whole = retried(chunksOf(request, options, call).pipe(answer), options?.signal);
          // The deadline of the whole call, retries included (outside retryOnTransient: never retried itself).
          return timeouts.json ? whole.pipe(chunkTimeouts<LlmClientOutput>({ total: timeouts.json })) : whole;
        }),
      ),
    stream: (request, options) =>
      calls.track(() => traced(request, true, (call) => retried(chunksOf(request, options, call).pipe(toOutputChunks()), options?.signal))),
    sse: (request, options) => client.stream(request, options).pipe(map((data) => serverSentEvent({ data }))),
    close: async (graceMs = 0) => {
      calls.close();
      if (!owned) return;
      // Not undici's graceful close(): a destroy() after it leaves the requests still running hanging.
      await calls.drain(graceMs);
      await dispatcher.destroy();
    },
  };
  const view = { provider, baseUrl, model, apiKey: apiKey === undefined ? undefined : '[redacted]' };
  Object.defineProperties(client, {
    toJSON: { value: () => view, enumerable: false },
    toString: { value: () => `ChatClient(${provider} ${baseUrl})`, enumerable: false },
    [inspect.custom]: { value: () => `ChatClient ${inspect(view)}`, enumerable: false },
  });
  return client;
}
