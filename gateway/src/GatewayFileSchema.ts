import { z } from 'zod';
import { DEFAULT_MAX_ANSWER_CHARS, DEFAULT_POOL, DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUTS, PROVIDERS, RATE_LIMIT_DEFAULTS } from 'chatflux';
import { describeOptions, option, type OptionDoc, ServingOptionsSchema, SERVING_DEFAULTS } from 'chatflux/node';
import { RoutesSchema } from './loadRoutes.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** An integer option from `min` to `max` (what a config file and its environment variable take), with its default. */
const integer = (min: number, max: number, fallback: number, doc: Omit<OptionDoc, 'range'>): z.ZodDefault<z.ZodNumber> =>
  option(z.number().int().min(min).max(max).default(fallback), { ...doc, range: `an integer from ${min} to ${max}` });

/** An integer option from `min` to `max` without a default value. */
const someInteger = (min: number, max: number, doc: Omit<OptionDoc, 'range'>): z.ZodOptional<z.ZodNumber> =>
  option(z.number().int().min(min).max(max).optional(), { ...doc, range: `an integer from ${min} to ${max}` });

/**
 * A serving option of `ServingOptionsSchema` as the gateway bounds it: an integer from `min` to `max`, with the
 * library's description and default (a config file states a whole number; the library takes `Infinity` too).
 */
const bounded = (name: 'heartbeatMs' | 'bodyTimeoutMs' | 'writeStallTimeoutMs' | 'maxConcurrentPerClient' | 'tokenTtlMs', min: number, max: number): z.ZodDefault<z.ZodNumber> => {
  const row = describeOptions(ServingOptionsSchema).find((candidate) => candidate.name === name);
  return integer(min, max, SERVING_DEFAULTS[name], { description: row?.description ?? name });
};

/**
 * A secret: in a config file only a reference to an environment variable (`${NAME}`), never the secret itself (the
 * file is read once, `loadGatewayConfig` refuses a literal).
 */
const SECRET = 'a reference to an environment variable: ${NAME}';

/** The gateway's own HTTP server. */
const HttpSchema = z.strictObject({
  port: integer(0, 65_535, 3000, { description: 'The port to listen on (0: an ephemeral one).' }),
  host: option(z.string().min(1).default('127.0.0.1'), { description: 'The address to listen on (0.0.0.0: every interface).', range: 'a host name or address' }),
  keepAliveTimeoutMs: integer(1000, HOUR_MS, 65_000, {
    description: 'How long an idle client connection stays open (longer than a balancer\'s 60 s), announced in Keep-Alive.',
  }),
  clientHeadersTimeoutMs: integer(1, 300_000, 60_000, {
    description: 'How long a client may take to send a request\'s headers, from their first byte (slowloris); slower gets 408.',
  }),
  corsOrigins: option(z.array(z.string()).optional(), {
    description: 'Origins whose pages may call the gateway from a browser (CORS, EventSource).',
    defaultText: 'none: no cross-origin access',
    range: 'origins such as https://app.example.com (scheme and host, no path)',
  }),
});

/** The gateway's processes. */
const ProcessSchema = z.strictObject({
  workers: option(z.union([z.literal('auto'), z.number().int().min(1).max(256)]).default(1), {
    description: 'How many processes serve the port (node:cluster); auto: one per core.',
    range: "'auto', or an integer from 1 to 256",
  }),
  shutdownGraceMs: integer(0, HOUR_MS, 10_000, { description: 'On SIGTERM/SIGINT, how long requests in flight may still run before they end with shutting_down.' }),
  debugWorkerHeader: option(z.boolean().default(false), { description: 'With workers > 1, name the worker (its index) in X-Chatflux-Worker.' }),
});

/** The built-in emulator, when the provider (or a route's target) is `emulator`. */
const EmulatorSchema = z.strictObject({
  paceMs: integer(0, 10_000, 30, { description: 'Milliseconds between two streamed events of the built-in emulator (a provider\'s pace).' }),
  scenarios: option(z.boolean().default(false), { description: 'The built-in emulator takes fault scenarios from the requests (a #… model suffix, x-emulator-scenario).' }),
});

/** The upstream's deadlines (`createChatClient`'s `timeouts`; their defaults are `DEFAULT_TIMEOUTS`). */
const TimeoutsSchema = z.strictObject({
  headers: integer(1, DAY_MS, DEFAULT_TIMEOUTS.headers, { description: 'The upstream\'s deadline for its response headers, ms.' }),
  silence: integer(0, DAY_MS, DEFAULT_TIMEOUTS.silence, { description: 'Before the first chunk, the longest stretch without a sign of life (: keep-alive), ms; 0: none.' }),
  firstChunk: integer(1, DAY_MS, DEFAULT_TIMEOUTS.firstChunk, { description: 'The upstream\'s deadline for its first chunk, ms.' }),
  idle: integer(1, DAY_MS, DEFAULT_TIMEOUTS.idle, { description: 'The longest silence between two upstream chunks, ms.' }),
  deadline: integer(0, DAY_MS, DEFAULT_TIMEOUTS.deadline, { description: 'The time budget of a request: no retry, fail-over or continuation starts past it, ms; 0: none.' }),
  json: someInteger(1, DAY_MS, { description: 'The deadline of a whole /chat/json request, retries included, ms.', defaultText: 'none' }),
});

/** Where the answers come from. */
const UpstreamSchema = z.strictObject({
  provider: option(z.enum(['emulator', ...(Object.keys(PROVIDERS) as Array<keyof typeof PROVIDERS>)]).optional(), {
    description: 'A provider preset, or emulator: the built-in emulator, in-process.',
    defaultText: 'emulator (openai-compatible with a baseUrl alone)',
  }),
  baseUrl: option(z.string().optional(), {
    description: 'The provider\'s base URL (required for openai-compatible).',
    defaultText: "the preset's",
    range: 'an http(s) URL, without credentials',
  }),
  apiKey: option(z.string().optional(), {
    description: 'The provider\'s API key.',
    defaultText: "the preset's own variable (DEEPSEEK_API_KEY, MOONSHOT_API_KEY, …)",
    range: SECRET,
    secret: true,
  }),
  model: option(z.string().min(1).optional(), { description: 'The model of a request that names none.', defaultText: "the preset's", range: 'a model name' }),
  retry: integer(0, 10, DEFAULT_RETRY_POLICY.count, { description: 'Retries of a transient upstream failure before the first chunk.' }),
  requireDone: option(z.boolean().default(false), { description: 'Only data: [DONE] ends an answer (else an EOF after every finish_reason does too).' }),
  timeouts: TimeoutsSchema.prefault({}),
  emulator: EmulatorSchema.prefault({}),
});

/** The bounds of the upstream work one gateway takes on. */
const LimitsSchema = z.strictObject({
  connections: integer(1, 65_536, DEFAULT_POOL.connections, { description: 'The size of the upstream connection pool.' }),
  connectionWaitMs: integer(0, DAY_MS, DEFAULT_POOL.connectionWaitMs, { description: 'The longest wait for a free upstream connection, then 503 upstream_busy, ms.' }),
  maxAnswerChars: integer(0, 1_073_741_824, DEFAULT_MAX_ANSWER_CHARS, { description: 'The most a /chat/json answer may hold, in characters; 0: no cap.' }),
  requestsPerMinute: someInteger(1, 1_000_000_000, {
    description: 'Per key: requests admitted per minute (GCRA), shared by every instance through streams.redisUrl; more get 429 rate_limit_exceeded.',
    defaultText: 'none',
  }),
  maxConcurrent: someInteger(1, 1_000_000, {
    description: 'Per key: requests running at once, shared by every instance through streams.redisUrl; more get 429 rate_limit_exceeded.',
    defaultText: 'none',
  }),
  tokensPerMinute: someInteger(1, 1_000_000_000_000, {
    description: 'Per key: weighted tokens admitted per minute (reserved at admission: prompt estimate + min(max_tokens, reserveOutputTokens); settled with the real usage); more get 429 rate_limit_exceeded.',
    defaultText: 'none',
  }),
  tokensPerDay: someInteger(1, 1_000_000_000_000, {
    description: 'Per key: a token budget per UTC day (running reservations count); the request that would cross it gets 429 insufficient_quota, not retried.',
    defaultText: 'none',
  }),
  tokensPerMonth: someInteger(1, 1_000_000_000_000, {
    description: 'Per key: a token budget per UTC month, as tokensPerDay.',
    defaultText: 'none',
  }),
  reserveOutputTokens: integer(1, 10_000_000, RATE_LIMIT_DEFAULTS.reserveOutputTokens, {
    description: 'The most answer tokens reserved at admission under token limits: min(max_tokens, this); this without max_tokens.',
  }),
  perModel: option(z.record(z.string().min(1).max(200), z.strictObject({ tokensPerMinute: z.number().int().min(1).max(1_000_000_000_000) })).optional(), {
    description: 'Weighted tokens per minute per key AND model, by model name (only the models named are limited).',
    type: 'Record<model, { tokensPerMinute }>',
    defaultText: 'none',
    range: 'a map of model names to { tokensPerMinute }',
  }),
  tokenWeights: option(
    z.strictObject({ input: z.number().min(0).max(1000).optional(), cachedInput: z.number().min(0).max(1000).optional(), output: z.number().min(0).max(1000).optional() }).optional(),
    {
      description: 'The weights of input, cached input and output tokens in the token limits and budgets.',
      type: '{ input?, cachedInput?, output? }',
      defaultText: '1 each',
      range: 'numbers from 0 to 1000',
    },
  ),
  perKey: option(
    z
      .record(
        z.string().regex(/^[A-Z_][A-Z0-9_]*$/),
        z.strictObject({
          requestsPerMinute: z.number().int().min(1).max(1_000_000_000).optional(),
          maxConcurrent: z.number().int().min(1).max(1_000_000).optional(),
          tokensPerMinute: z.number().int().min(1).max(1_000_000_000_000).optional(),
          tokensPerDay: z.number().int().min(1).max(1_000_000_000_000).optional(),
          tokensPerMonth: z.number().int().min(1).max(1_000_000_000_000).optional(),
        }),
      )
      .optional(),
    {
      description: 'Limits of one key, over the defaults: keyed by the environment variable holding the key (one of serve.apiKeys).',
      type: 'Record<VARIABLE, { requestsPerMinute?, maxConcurrent?, tokensPerMinute?, tokensPerDay?, tokensPerMonth? }>',
      defaultText: 'none',
      range: 'a map of variable names (GATEWAY_KEY_ALICE) to { requestsPerMinute?, maxConcurrent?, tokensPerMinute?, tokensPerDay?, tokensPerMonth? }',
    },
  ),
  onStoreFailure: option(z.enum(['local', 'open', 'closed']).default(RATE_LIMIT_DEFAULTS.onStoreFailure), {
    description: 'Redis down: local (each instance enforces its share, limit / expectedInstances), open (no limit) or closed (503); logged and counted.',
  }),
  expectedInstances: integer(1, 10_000, RATE_LIMIT_DEFAULTS.expectedInstances, { description: 'How many processes share the limits (instances × workers), for the local policy\'s share.' }),
  placeTtlMs: integer(100, HOUR_MS, RATE_LIMIT_DEFAULTS.placeTtlMs, { description: 'How long a running request\'s place lasts unrenewed: a dead process\'s places free after it, ms.' }),
  storeTimeoutMs: someInteger(10, 60_000, {
    description: 'How long an admission waits for Redis before the failure policy applies, ms (a busy process or Redis needs more).',
    defaultText: '250 (createRedisRateLimitStore\'s)',
  }),
});

/** What clients may ask for (`requestPolicy`, checked again by `checkRequestPolicy`). */
const RequestPolicySchema = z.strictObject({
  allowedModels: option(z.array(z.string().min(1)).optional(), { description: 'The model names clients may ask for.', defaultText: 'any' }),
  maxTokens: someInteger(1, 10_000_000, { description: 'A cap on max_tokens / max_completion_tokens, and the limit of requests that set none.', defaultText: 'none' }),
  maxN: someInteger(1, 128, { description: 'A cap on n.', defaultText: 'none' }),
  stripFields: option(z.array(z.string().min(1)).optional(), { description: 'Top-level request fields removed before the request goes upstream.', defaultText: 'none' }),
});

/** The serving options (`ServingOptionsSchema`: the library's names, descriptions and defaults). */
const ServeSchema = ServingOptionsSchema.pick({ apiKeys: true, allowSeveralChoices: true, tokenSecret: true, bodyLimit: true, queryLimit: true, maxLogFieldChars: true })
  .extend({
    heartbeatMs: bounded('heartbeatMs', 0, HOUR_MS),
    bodyTimeoutMs: bounded('bodyTimeoutMs', 0, HOUR_MS),
    writeStallTimeoutMs: bounded('writeStallTimeoutMs', 0, HOUR_MS),
    maxConcurrentPerClient: bounded('maxConcurrentPerClient', 0, 1_000_000),
    tokenTtlMs: bounded('tokenTtlMs', 1000, DAY_MS),
    requestPolicy: RequestPolicySchema.optional(),
  })
  .strict();

/** Resumable answers (issue #30): the stream log and its times. */
const StreamsSchema = z.strictObject({
  resumable: option(z.boolean().default(true), {
    description: 'Resumable answers (Chatflux-Stream-Id, Last-Event-ID, GET /chat/streams/{id}, cancel); false: a disconnect aborts the upstream at once.',
  }),
  redisUrl: option(z.string().regex(/^rediss?:\/\//).optional(), {
    description: 'The shared stream log: every instance resumes and cancels every answer.',
    defaultText: 'none: in memory, this instance only',
    range: SECRET,
    secret: true,
  }),
  abandonAfterMs: integer(0, DAY_MS, 60_000, { description: 'How long an answer goes on with no reader before its upstream is aborted (abandoned), ms; 0: at once.' }),
  retentionMs: integer(1000, DAY_MS, 600_000, { description: 'How long a finished answer can be replayed, ms.' }),
  leaseMs: someInteger(500, 60_000, {
    description: 'With Redis: how long a producing instance\'s lease lasts; readers elsewhere get producer_lost once it has run out, ms.',
    defaultText: '5000',
  }),
});

/** The gateway's telemetry (the OTLP exporters read the `OTEL_EXPORTER_OTLP_*` variables themselves). */
const TelemetrySchema = z.strictObject({
  metricsToken: option(z.string().optional(), { description: 'The Bearer token GET /metrics asks for.', defaultText: 'none: /metrics is open', range: SECRET, secret: true }),
  instanceId: option(z.string().regex(/^[\w.:@/-]{1,128}$/).optional(), {
    description: "This instance's id in its metrics (service.instance.id, target_info on /metrics).",
    defaultText: '<hostname>:<pid> of the primary',
    range: '1 to 128 letters, digits and . _ : @ / -',
  }),
});

/**
 * The gateway's config file (`chatflux-gateway --config gateway.yaml`), section by section: `http`, `process`,
 * `upstream`, `limits`, `routes`, `serve` (the library's serving options, `ServingOptionsSchema`'s names), `telemetry`.
 * Each field is declared here once with its default, range and description; `--help`, the banner, `--check-config`
 * and the docs' `<!-- options:gateway -->` table are rendered from it, and the `CHATFLUX_*` environment variables
 * (`GATEWAY_ENV`) each set one of its keys. Secrets (`upstream.apiKey`, `serve.apiKeys`, `serve.tokenSecret`,
 * `telemetry.metricsToken`) are written as references to environment variables: `${NAME}`.
 */
export const GatewayFileSchema = z.strictObject({
  http: HttpSchema.prefault({}),
  process: ProcessSchema.prefault({}),
  upstream: UpstreamSchema.prefault({}),
  limits: LimitsSchema.prefault({}),
  routes: option(RoutesSchema.optional(), {
    description: 'Routes by model name: each a primary and its fallbacks, with failover, breakers and continuation (docs: Failover).',
    type: 'Record<model, { targets: [...] }>',
    defaultText: 'none',
    range: 'a map of model names to { targets, breaker?, … }',
  }),
  serve: ServeSchema.prefault({}),
  streams: StreamsSchema.prefault({}),
  telemetry: TelemetrySchema.prefault({}),
});

