import { z } from 'zod';
import type { RequestLimitsConfig } from '../core/requestLimits.js';
import type { RequestPolicyConfig } from '../core/RequestPolicyConfig.js';
import type { ChatRequest } from '../core/schemas/index.js';
import { option } from '../core/optionDocs.js';
import type { ChatEndpoint, ChatRequestLog } from './ChatRequestLog.js';
import type { RateLimitsConfig } from './RateLimitsConfig.js';
import type { ResumableConfig } from './ResumableConfig.js';

/** The range of every duration option: what `durationMs` accepts (`Infinity`, or more than a timer waits, is none). */
const DURATION = 'a number of ms ≥ 0 (0 or Infinity: none)';
const isDuration = (value: unknown): value is number => typeof value === 'number' && value >= 0;
const duration = (fallback: number, description: string): z.ZodDefault<z.ZodCustom<number, number>> =>
  option(z.custom<number>(isDuration).default(fallback), { description, range: DURATION, type: 'number' });
const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);
const isFunction = (value: unknown): boolean => typeof value === 'function';
const strings = (): z.ZodReadonly<z.ZodArray<z.ZodString>> => z.array(z.string()).readonly();

/**
 * THE serving options, each with its default, its range and its description, written once: what the serving core
 * (`createServingCore`) reads whatever the transport — `createChatEndpoints`, `chatRouter`, `ChatfluxModule.forRoot`,
 * `createChatHandlers` and the gateway's `serve` section all take these fields (their configs are made of
 * `ServingSettingsConfig`, this schema's input type). `SERVING_DEFAULTS` is its defaults; `resolveServingSettings`
 * checks a config against it (`checkOptions`: a `ConfigError` naming the field); the option tables of the docs and the
 * gateway's `--help` are rendered from it (`describeOptions`).
 *
 * The client (`client`) and the graceful shutdown (`shutdown`) are the adapters' own; every other option is here.
 */
export const ServingOptionsSchema = z.object({
  /** Accepted downstream Bearer keys; empty or absent: the endpoints are open. */
  apiKeys: option(strings().optional(), {
    description: 'Accepted downstream Bearer keys (compared in constant time); empty ones are dropped.',
    defaultText: 'none: the endpoints are open',
    secret: true,
  }),
  /** The JSON body limit (bytes, or a string such as `'1mb'`); larger bodies get 413. Default `'1mb'`. */
  bodyLimit: option(z.union([z.number().min(0), z.string().min(1)]).default('1mb'), {
    description: 'The JSON body limit; a larger body gets 413.',
    range: "a number of bytes ≥ 0, or a size such as '512kb'",
  }),
  /**
   * The longest wait for a whole request body, in ms; a slower body gets 408 `request_timeout` and its connection is
   * closed. Default 30000; `0`: none (Node's `requestTimeout`, 300 s, still applies).
   */
  bodyTimeoutMs: duration(30_000, 'The longest wait for a whole request body; slower gets 408 request_timeout.'),
  /**
   * The most requests one client may have running at once (from the moment its key is accepted until its response
   * ends); past it, 429 `concurrency_limit` with `Retry-After`. A client is its Bearer key when `apiKeys` are
   * configured, else its remote address (see `clientKey`). Default 32; `0`: no limit.
   */
  maxConcurrentPerClient: option(z.custom<number>((value) => value === Infinity || (Number.isInteger(value) && (value as number) >= 0)).default(32), {
    description: 'The most requests one client (its key, else its address) may have running; more get 429.',
    range: 'an integer ≥ 0 (0 or Infinity: no limit)',
    type: 'number',
  }),
  /**
   * Per-key limits (`RateLimitsConfig`): requests per minute (GCRA), requests running at once, weighted tokens per
   * minute (per client and per client + model, reserved at admission and settled with the real usage) and token
   * budgets per day and month, with rules per client, held in this process or, with a shared `store`
   * (`createRedisRateLimitStore`), across processes and instances; a failure policy for a store that cannot decide.
   * Every response then carries the `x-ratelimit-*-requests` / `-tokens` and `RateLimit-Policy` / `RateLimit` headers;
   * over a limit, 429 `rate_limit_exceeded` with `Retry-After` and `retry-after-ms`; a spent budget, 429
   * `insufficient_quota` with `x-should-retry: false`. `maxConcurrentPerClient` still holds per process beside it. Default: none.
   */
  limits: option(z.custom<RateLimitsConfig>(isObject).optional(), {
    description: 'Per-key limits: requestsPerMinute, maxConcurrent, tokensPerMinute, tokensPerDay, tokensPerMonth, perClient, perModel, a shared store, onStoreFailure (local, open, closed).',
    type: 'RateLimitsConfig',
    defaultText: 'none',
    range: '{ requestsPerMinute?, maxConcurrent?, tokensPerMinute?, tokensPerDay?, tokensPerMonth?, perClient?, perModel?, reserveOutputTokens?, tokenWeights?, store?, onStoreFailure?, expectedInstances?, placeTtlMs?, onStoreError?, onSettle? }',
  }),
  /** Bounds checked before a body is validated (messages, nesting, values, characters, issues reported); see `DEFAULT_REQUEST_LIMITS`. */
  requestLimits: option(z.custom<RequestLimitsConfig>(isObject).optional(), {
    description: 'Bounds checked before a body is validated (messages, nesting, values, characters).',
    type: 'RequestLimitsConfig',
    defaultText: 'DEFAULT_REQUEST_LIMITS',
    range: 'an object of limits (see DEFAULT_REQUEST_LIMITS)',
  }),
  /** The longest `q` query parameter of `GET /chat/sse`, in characters; longer gets 413. Default 8192. */
  queryLimit: option(z.custom<number>((value) => typeof value === 'number' && value >= 0).default(8192), {
    description: 'The longest q query parameter of GET /chat/sse, in characters; longer gets 413.',
    range: 'a number of characters ≥ 0',
    type: 'number',
  }),
  /**
   * The write stall deadline, in ms: a response whose client has not read (its socket not drained) for this long is
   * ended — the upstream aborted (its connection released), the client's socket destroyed, the log entry `failed`
   * with the code `client_stalled`. Default 30000; `0`: none (a client that never reads holds its request forever).
   */
  writeStallTimeoutMs: duration(30_000, 'A response whose client has read nothing this long is ended (client_stalled), its upstream released.'),
  /**
   * The secret that signs the short-lived tokens of `POST /chat/token` (HMAC-SHA256; at least 16 characters). Absent:
   * a random secret of this process (tokens do not pass between instances: give a cluster one secret).
   */
  tokenSecret: option(z.string().min(16).optional(), {
    description: 'With apiKeys: the secret signing the EventSource tokens of POST /chat/token (give a cluster one).',
    range: 'a string of at least 16 characters',
    defaultText: 'a random secret per process',
    secret: true,
  }),
  /** How long a token of `POST /chat/token` lets `GET /chat/sse?token=…` in, in ms. Default 60000. */
  tokenTtlMs: option(z.number().int().positive().default(60_000), {
    description: 'With apiKeys: how long a token of POST /chat/token lets GET /chat/sse?token=… in.',
    range: 'a positive integer of ms',
  }),
  /** SSE heartbeat interval in ms (`0` disables). Default 15000. */
  heartbeatMs: duration(15_000, 'The silence after which a stream writes its heartbeat (: ping on /chat/sse).'),
  /** The longest string field of a log entry (model, error message, …), in characters; longer is cut. Default 1024. */
  maxLogFieldChars: option(z.number().int().min(0).default(1024), {
    description: 'The longest string field of a log entry (model, error message), in characters; longer is cut.',
    range: 'an integer ≥ 0',
  }),
  /** More literal secrets to redact from error messages (the `apiKeys` are always redacted). */
  secrets: option(strings().optional(), {
    description: 'More literal secrets to redact from error messages and log entries (the apiKeys always are).',
    defaultText: 'none',
    secret: true,
  }),
  /**
   * Whether `/chat/json`, `/chat/stream` and `/chat/sse` forward a request's `n` > 1 (default `false`: 400
   * `invalid_request`, saying why). The contract has one message: the upstream generates — and bills — `n` answers, and
   * the client gets the first (`toOutput`, `toOutputChunks`). Allow it only for an upstream whose other choices you
   * want paid for anyway (cap it with `requestPolicy.maxN`). OpenAI's `POST /v1/chat/completions` refuses `n` > 1
   * whatever this says.
   */
  allowSeveralChoices: option(z.boolean().default(false), {
    description: 'Whether /chat/* forward a request\'s n > 1 (billed n times, the first answered); else 400.',
  }),
  /** What clients may ask for: allowed models, caps on `max_tokens` / `max_completion_tokens` and `n`, fields to strip (default: everything, forwarded intact). */
  requestPolicy: option(z.custom<RequestPolicyConfig>(isObject).optional(), {
    description: 'What clients may ask for: allowed models, caps on max_tokens and n, fields to strip.',
    type: 'RequestPolicyConfig',
    defaultText: 'everything, forwarded intact',
    range: '{ allowedModels?, maxTokens?, maxN?, stripFields? }',
  }),
  /** The model used when a request names none (otherwise the client's default applies). */
  model: option(z.string().min(1).optional(), {
    description: 'The model of a request that names none.',
    defaultText: "the client's",
    range: 'a model name',
  }),
  /**
   * More model names `GET /v1/models` lists (a gateway's routes), besides the default `model`, the client's and the
   * request policy's `allowedModels`.
   */
  models: option(strings().optional(), {
    description: 'More model names GET /v1/models lists, besides model, the client\'s and allowedModels.',
    defaultText: 'none',
  }),
  /** The request `GET /chat/sse` serves when it has no `q`; absent: 400. */
  demoRequest: option(z.custom<ChatRequest>(isObject).optional(), {
    description: 'The request GET /chat/sse serves when it has no q.',
    type: 'ChatRequest',
    defaultText: 'none: 400',
    range: 'a ChatRequest',
  }),
  /**
   * Who a request comes from, for `maxConcurrentPerClient` (default `clientKeyOf(req, apiKeys configured)`). A
   * `GET /chat/sse?token=…` request counts by default as the client of its token's key; a custom `clientKey` is asked
   * about it as about any request (it has no `Authorization` header). The same client is a route's `caller` (its
   * breakers), when a custom `clientKey` or two or more keys tell clients apart. Each transport narrows it to its own
   * request (node's `IncomingMessage`, a web `Request`).
   */
  clientKey: option(z.custom<(req: never) => string>(isFunction).optional(), {
    description: 'Who a request comes from, for maxConcurrentPerClient and the breakers\' caller.',
    type: '(request) => string',
    defaultText: 'its hashed Bearer key, else its address',
    range: 'a function',
  }),
  /** Receives one entry per request. */
  log: option(z.custom<(entry: ChatRequestLog) => void>(isFunction).optional(), {
    description: 'Receives one entry per request (ChatRequestLog).',
    type: '(entry: ChatRequestLog) => void',
    defaultText: 'none',
    range: 'a function',
  }),
  /**
   * Called each time a streaming response writes its heartbeat (`: ping` on `/chat/sse`, `: keep-alive` on OpenAI's
   * stream), with the endpoint's path: a keep-alive metric without a look at every write.
   */
  onHeartbeat: option(z.custom<(endpoint: ChatEndpoint) => void>(isFunction).optional(), {
    description: 'Called with the endpoint each time a stream writes its heartbeat (a keep-alive metric).',
    type: '(endpoint: ChatEndpoint) => void',
    defaultText: 'none',
    range: 'a function',
  }),
  /**
   * Resumable answers: `true` (an in-memory log of this process) or their options (`ResumableConfig`; a shared log
   * such as `createRedisStreamLog`'s lets every instance resume every answer). The streamed endpoints then answer with
   * `Chatflux-Stream-Id`, SSE events carry `id:`s, a client that lost its connection resumes with `Last-Event-ID` or
   * `GET /chat/streams/{id}`, and `POST /chat/streams/{id}/cancel` stops an answer; a disconnect no longer aborts the
   * upstream at once (`ResumableConfig.abandonAfterMs`). Default: off.
   */
  resumable: option(z.custom<boolean | ResumableConfig>((value) => typeof value === 'boolean' || isObject(value)).optional(), {
    description: 'Resumable answers: true (an in-memory log) or { log, abandonAfterMs, retentionMs, retryAfterMs }; a disconnect is then not a cancel.',
    type: 'boolean | ResumableConfig',
    defaultText: 'off',
    range: 'true, false or a ResumableConfig',
  }),
  /** Aborting it ends every response in flight with an error (graceful shutdown). */
  signal: option(z.custom<AbortSignal>((value) => isObject(value) && typeof (value as AbortSignal).aborted === 'boolean').optional(), {
    description: 'Aborting it ends every response in flight with an error (graceful shutdown).',
    type: 'AbortSignal',
    defaultText: 'none',
    range: 'an AbortSignal',
  }),
});
