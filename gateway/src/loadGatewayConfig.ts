import { ConfigError, type RequestPolicyConfig, PROVIDERS as PRESETS, type ProviderName } from 'chatflux';
import { loadRoutes, type GatewayRoute } from './loadRoutes.js';

/** Where the gateway gets its answers: the built-in emulator, or a provider preset (`PROVIDERS`). */
export type GatewayProvider = 'emulator' | ProviderName;

/** The gateway's configuration, as {@link loadGatewayConfig} reads it from the environment. */
export interface GatewayConfig {
  /** `PORT`, default 3000 (`0`: an ephemeral port). */
  port: number;
  /** `HOST`, default `127.0.0.1`. */
  host: string;
  /** `CHATFLUX_PROVIDER`; `emulator` when unset (or `openai-compatible` when only `CHATFLUX_BASE_URL` is set). */
  provider: GatewayProvider;
  /** `CHATFLUX_BASE_URL`: the provider's base URL (required for `openai-compatible`). */
  baseUrl?: string;
  /** `CHATFLUX_API_KEY`, else the preset's own variable (`MOONSHOT_API_KEY`, `DEEPSEEK_API_KEY`, `GROQ_API_KEY`, …). Secret. */
  apiKey?: string;
  /** `CHATFLUX_MODEL`: the default model of requests that name none. */
  model?: string;
  /** `CHATFLUX_GATEWAY_KEYS`, comma-separated downstream Bearer keys; empty: the gateway is open. Secret. */
  gatewayKeys: string[];
  /** `CHATFLUX_MAX_RETRIES`: retries of a transient upstream failure before the first chunk. */
  maxRetries?: number;
  /** `CHATFLUX_FIRST_CHUNK_TIMEOUT_MS`: the upstream's deadline for its first chunk. */
  firstChunkTimeoutMs?: number;
  /** `CHATFLUX_IDLE_TIMEOUT_MS`: the longest silence between two upstream chunks. */
  idleTimeoutMs?: number;
  /** `CHATFLUX_HEARTBEAT_MS`: SSE `: ping` after this much silence (`0` disables), default 15000. */
  heartbeatMs: number;
  /** `CHATFLUX_REQUIRE_DONE=true`: only `data: [DONE]` ends an upstream answer (default: an EOF after every `finish_reason` does too). */
  requireDone?: boolean;
  /**
   * What clients may ask for, absent when no variable restricts anything: `CHATFLUX_ALLOWED_MODELS` (comma-separated
   * model names), `CHATFLUX_MAX_TOKENS` (cap on `max_tokens` / `max_completion_tokens`, and the limit of requests that
   * set none), `CHATFLUX_MAX_N` (cap on `n`), `CHATFLUX_STRIP_FIELDS` (comma-separated top-level fields removed before
   * the request goes upstream).
   */
  requestPolicy?: RequestPolicyConfig;
  /**
   * `CHATFLUX_ALLOW_SEVERAL_CHOICES=true`: `/chat/json`, `/chat/stream` and `/chat/sse` forward a request's `n` > 1
   * (default false: 400, as the contract has one message, and the upstream would bill `n` answers to send the first).
   */
  allowSeveralChoices?: boolean;
  /** `CHATFLUX_HEADERS_TIMEOUT_MS`: the upstream's deadline for its response headers (default 30000). */
  headersTimeoutMs?: number;
  /** `CHATFLUX_SILENCE_TIMEOUT_MS`: before the first chunk, the longest stretch without an SSE comment (`: keep-alive`) (default 30000; `0`: none). */
  silenceTimeoutMs?: number;
  /**
   * `CHATFLUX_DEADLINE_MS`: the time budget of a request: no retry starts past it from its start — through a route, no
   * retry, fail-over, continuation or restart past it from its start or its latest cut (a route's `cutDeadlineMs`)
   * (default 60000; `0`: none).
   */
  deadlineMs?: number;
  /** `CHATFLUX_MAX_ANSWER_CHARS`: the most a `/chat/json` answer may hold (default 16 Mi characters; `0`: no cap). */
  maxAnswerChars?: number;
  /** `CHATFLUX_JSON_TIMEOUT_MS`: the deadline of a whole `/chat/json` request, retries included (default: none). */
  jsonTimeoutMs?: number;
  /** `CHATFLUX_UPSTREAM_CONNECTIONS`: the size of the upstream connection pool (default 128). */
  upstreamConnections?: number;
  /** `CHATFLUX_CONNECTION_WAIT_MS`: the longest wait for a free upstream connection, then 503 `upstream_busy` (default 10000). */
  connectionWaitMs?: number;
  /**
   * `CHATFLUX_EMULATOR_SCENARIOS=true`: the built-in emulator takes fault scenarios from the requests (a `#…` suffix
   * of the model name, `x-emulator-scenario`); default false: any client could otherwise drive its faults.
   */
  emulatorScenarios?: boolean;
  /**
   * `CHATFLUX_DEBUG_WORKER_HEADER=true`: with `CHATFLUX_WORKERS` > 1, each response says which worker served it in
   * `X-Chatflux-Worker`: its node:cluster index (1, 2, …; a replaced worker gets the next), never its PID. Default
   * false: no header, nothing about the processes reaches a client.
   */
  debugWorkerHeader?: boolean;
  /**
   * `CHATFLUX_CORS_ORIGINS`, comma-separated origins (`https://app.example.com`) whose pages may call the gateway
   * from a browser (CORS, `GET /chat/sse` from their `EventSource`); default none: no cross-origin access.
   */
  corsOrigins?: string[];
  /** `CHATFLUX_BODY_TIMEOUT_MS`: the longest wait for a whole request body, then 408 `request_timeout` (default 30000; `0`: none). */
  bodyTimeoutMs?: number;
  /** `CHATFLUX_TOKEN_SECRET`: signs the short-lived `EventSource` tokens of `POST /chat/token` (default: a random secret per process). Secret. */
  tokenSecret?: string;
  /** `CHATFLUX_TOKEN_TTL_MS`: how long a token of `POST /chat/token` is valid (default 60000). */
  tokenTtlMs?: number;
  /** `CHATFLUX_WRITE_STALL_TIMEOUT_MS`: a response whose client has not read for this long is ended, its upstream released (default 30000; `0`: none). */
  writeStallTimeoutMs?: number;
  /**
   * `CHATFLUX_KEEP_ALIVE_TIMEOUT_MS`: how long an idle client connection stays open, announced in `Keep-Alive:
   * timeout=…` (default `GATEWAY_DEFAULTS.keepAliveTimeoutMs`, 65000: longer than a balancer's 60 s idle timeout).
   */
  keepAliveTimeoutMs?: number;
  /** `CHATFLUX_MAX_CONCURRENT_PER_CLIENT`: requests one client (key, else address) may have running (default 32; `0`: no limit). */
  maxConcurrentPerClient?: number;
  /**
   * `CHATFLUX_SHUTDOWN_GRACE_MS`: on SIGTERM/SIGINT, how long requests in flight may still run before they end with
   * `shutting_down` (default `GATEWAY_DEFAULTS.shutdownGraceMs`, 10000).
   */
  shutdownGraceMs?: number;
  /**
   * `CHATFLUX_EMULATOR_PACE_MS`: milliseconds between two streamed events of the built-in emulator (provider
   * `emulator` only; default `GATEWAY_DEFAULTS.emulatorPaceMs`, 30: a provider's pace, so that the demo streams).
   */
  emulatorPaceMs?: number;
  /** `CHATFLUX_METRICS_TOKEN`: the Bearer token `GET /metrics` asks for (default none: `/metrics` is open, as `/healthz`). Secret. */
  metricsToken?: string;
  /**
   * Which OpenTelemetry signals go out over OTLP/HTTP: traces when `OTEL_EXPORTER_OTLP_ENDPOINT` or
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, metrics when `OTEL_EXPORTER_OTLP_ENDPOINT` or
   * `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` is (the exporters read the other `OTEL_EXPORTER_OTLP_*` variables themselves).
   */
  otlp?: { traces: boolean; metrics: boolean };
  /**
   * `CHATFLUX_ROUTES` (JSON) or `CHATFLUX_ROUTES_FILE` (a path): routes by model name, each a primary and its
   * fallbacks with failover, circuit breakers and mid-stream continuation (`loadRoutes`, README "Failover").
   */
  routes?: Record<string, GatewayRoute>;
  /** The API keys of route targets, read from the variables their `apiKeyEnv` names (by variable name). Secret. */
  routeKeys?: Record<string, string>;
  /**
   * `CHATFLUX_REDIS_URL` (`redis://…`, `rediss://…`, `unix://…`): the shared stream log, so that every instance can
   * resume (and cancel) every answer. Default none: an in-memory log, answers resumable on the instance that made
   * them. Secret (it may hold a password).
   */
  redisUrl?: string;
  /** `CHATFLUX_RESUMABLE`: `false` turns resumable answers off (a disconnect aborts the upstream at once). Default on. */
  resumable?: boolean;
  /**
   * `CHATFLUX_ABANDON_AFTER_MS`: how long an answer goes on with no reader (its client went away, nobody resumed it)
   * before its upstream is aborted (default 60000; `0`: at once).
   */
  abandonAfterMs?: number;
  /** `CHATFLUX_STREAM_RETENTION_MS`: how long a finished answer can be replayed (default 600000; at most 86400000). */
  streamRetentionMs?: number;
  /**
   * `CHATFLUX_STREAM_LEASE_MS` (with Redis): how long a producing instance's lease lasts without renewal; a reader
   * elsewhere declares the answer `producer_lost` once it has run out (default: the Redis log's, 5000).
   */
  streamLeaseMs?: number;
}

const PROVIDERS: readonly GatewayProvider[] = ['emulator', ...(Object.keys(PRESETS) as ProviderName[])];

const integer = (env: Record<string, string | undefined>, name: string, min: number, max: number): number | undefined => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}: fix or unset it.`);
  }
  return value;
};
const flag = (env: Record<string, string | undefined>, name: string): boolean | undefined => {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false (or 1 / 0), got ${JSON.stringify(env[name])}: fix or unset it.`);
};
const list = (env: Record<string, string | undefined>, name: string): string[] | undefined => {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
};
const text = (env: Record<string, string | undefined>, name: string): string | undefined => {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
};

/**
 * Reads the gateway's configuration from environment variables (a pure function: pass `process.env`).
 *
 * @param env - The environment.
 * @returns The configuration, with defaults applied.
 * @throws ConfigError naming the variable to fix (a bad number, an unknown provider, a missing base URL, a base URL
 *   with credentials in it).
 */
export function loadGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  const baseUrl = text(env, 'CHATFLUX_BASE_URL');
  const provider = (text(env, 'CHATFLUX_PROVIDER') ?? (baseUrl === undefined ? 'emulator' : 'openai-compatible')) as GatewayProvider;
  if (!PROVIDERS.includes(provider)) {
    throw new ConfigError(`CHATFLUX_PROVIDER must be one of ${PROVIDERS.join(', ')}, got ${JSON.stringify(provider)}.`);
  }
  if (provider === 'openai-compatible' && baseUrl === undefined) {
    throw new ConfigError('CHATFLUX_PROVIDER=openai-compatible needs CHATFLUX_BASE_URL (e.g. https://host/v1).');
  }
  if (baseUrl !== undefined && !/^https?:\/\//.test(baseUrl)) {
    throw new ConfigError(`CHATFLUX_BASE_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}.`);
  }
  // Credentials in the URL are never sent (undici ignores them) and would be printed with it: refused, not echoed.
  if (baseUrl !== undefined && /^https?:\/\/[^/?#]*@/i.test(baseUrl)) {
    throw new ConfigError('CHATFLUX_BASE_URL must not hold credentials (user:password@host): they are not sent upstream; put the key in CHATFLUX_API_KEY.');
  }
  const providerKey = provider === 'emulator' ? undefined : PRESETS[provider].apiKeyEnv;
  const apiKey = text(env, 'CHATFLUX_API_KEY') ?? (providerKey === undefined ? undefined : text(env, providerKey));
  const config: GatewayConfig = {
    port: integer(env, 'PORT', 0, 65535) ?? 3000,
    host: text(env, 'HOST') ?? '127.0.0.1',
    provider,
    gatewayKeys: (env['CHATFLUX_GATEWAY_KEYS'] ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== ''),
    heartbeatMs: integer(env, 'CHATFLUX_HEARTBEAT_MS', 0, 3_600_000) ?? 15_000,
  };
  const corsOrigins = list(env, 'CHATFLUX_CORS_ORIGINS');
  const notOrigin = corsOrigins?.find((origin) => !/^https?:\/\/[^/\s]+$/.test(origin) || !URL.canParse(origin));
  if (notOrigin !== undefined) {
    throw new ConfigError(`CHATFLUX_CORS_ORIGINS takes origins such as https://app.example.com (scheme and host, no path), got ${JSON.stringify(notOrigin)}.`);
  }
  // As a browser writes its Origin header (RFC 6454): host in lower case, no default port. Compared verbatim, an
  // origin written otherwise (`https://App.example.com`, `https://app.example.com:443`) would never match.
  if (corsOrigins !== undefined) config.corsOrigins = corsOrigins.map((origin) => new URL(origin).origin);
  const tokenSecret = text(env, 'CHATFLUX_TOKEN_SECRET');
  if (tokenSecret !== undefined && tokenSecret.length < 16) throw new ConfigError('CHATFLUX_TOKEN_SECRET must be at least 16 characters (a random string): fix or unset it.');
  if (tokenSecret !== undefined) config.tokenSecret = tokenSecret;
  const model = text(env, 'CHATFLUX_MODEL');
  const maxRetries = integer(env, 'CHATFLUX_MAX_RETRIES', 0, 10);
  const firstChunkTimeoutMs = integer(env, 'CHATFLUX_FIRST_CHUNK_TIMEOUT_MS', 1, 86_400_000);
  const idleTimeoutMs = integer(env, 'CHATFLUX_IDLE_TIMEOUT_MS', 1, 86_400_000);
  const requestPolicy: RequestPolicyConfig = {};
  const allowedModels = list(env, 'CHATFLUX_ALLOWED_MODELS');
  const maxTokens = integer(env, 'CHATFLUX_MAX_TOKENS', 1, 10_000_000);
  const maxN = integer(env, 'CHATFLUX_MAX_N', 1, 128);
  const stripFields = list(env, 'CHATFLUX_STRIP_FIELDS');
  if (allowedModels !== undefined) requestPolicy.allowedModels = allowedModels;
  if (maxTokens !== undefined) requestPolicy.maxTokens = maxTokens;
  if (maxN !== undefined) requestPolicy.maxN = maxN;
  if (stripFields !== undefined) {
    const vital = stripFields.find((field) => field === 'model' || field === 'messages');
    if (vital !== undefined)
      throw new ConfigError(`CHATFLUX_STRIP_FIELDS cannot strip ${vital}: every request needs it (restrict models with CHATFLUX_ALLOWED_MODELS).`);
    requestPolicy.stripFields = stripFields;
  }
  if (Object.keys(requestPolicy).length > 0) config.requestPolicy = requestPolicy;
  const emulatorScenarios = flag(env, 'CHATFLUX_EMULATOR_SCENARIOS');
  if (emulatorScenarios !== undefined) config.emulatorScenarios = emulatorScenarios;
  const debugWorkerHeader = flag(env, 'CHATFLUX_DEBUG_WORKER_HEADER');
  if (debugWorkerHeader !== undefined) config.debugWorkerHeader = debugWorkerHeader;
  const allowSeveralChoices = flag(env, 'CHATFLUX_ALLOW_SEVERAL_CHOICES');
  if (allowSeveralChoices !== undefined) config.allowSeveralChoices = allowSeveralChoices;
  const requireDone = flag(env, 'CHATFLUX_REQUIRE_DONE');
  if (requireDone !== undefined) config.requireDone = requireDone;
  if (baseUrl !== undefined) config.baseUrl = baseUrl;
  if (apiKey !== undefined) config.apiKey = apiKey;
  if (model !== undefined) config.model = model;
  if (maxRetries !== undefined) config.maxRetries = maxRetries;
  if (firstChunkTimeoutMs !== undefined) config.firstChunkTimeoutMs = firstChunkTimeoutMs;
  if (idleTimeoutMs !== undefined) config.idleTimeoutMs = idleTimeoutMs;
  const limits = {
    headersTimeoutMs: integer(env, 'CHATFLUX_HEADERS_TIMEOUT_MS', 1, 86_400_000),
    silenceTimeoutMs: integer(env, 'CHATFLUX_SILENCE_TIMEOUT_MS', 0, 86_400_000),
    deadlineMs: integer(env, 'CHATFLUX_DEADLINE_MS', 0, 86_400_000),
    maxAnswerChars: integer(env, 'CHATFLUX_MAX_ANSWER_CHARS', 0, 1_073_741_824),
    jsonTimeoutMs: integer(env, 'CHATFLUX_JSON_TIMEOUT_MS', 1, 86_400_000),
    upstreamConnections: integer(env, 'CHATFLUX_UPSTREAM_CONNECTIONS', 1, 65_536),
    connectionWaitMs: integer(env, 'CHATFLUX_CONNECTION_WAIT_MS', 0, 86_400_000),
    maxConcurrentPerClient: integer(env, 'CHATFLUX_MAX_CONCURRENT_PER_CLIENT', 0, 1_000_000),
    bodyTimeoutMs: integer(env, 'CHATFLUX_BODY_TIMEOUT_MS', 0, 3_600_000),
    writeStallTimeoutMs: integer(env, 'CHATFLUX_WRITE_STALL_TIMEOUT_MS', 0, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'CHATFLUX_KEEP_ALIVE_TIMEOUT_MS', 1000, 3_600_000),
    tokenTtlMs: integer(env, 'CHATFLUX_TOKEN_TTL_MS', 1000, 86_400_000),
    shutdownGraceMs: integer(env, 'CHATFLUX_SHUTDOWN_GRACE_MS', 0, 3_600_000),
    emulatorPaceMs: integer(env, 'CHATFLUX_EMULATOR_PACE_MS', 0, 10_000),
    abandonAfterMs: integer(env, 'CHATFLUX_ABANDON_AFTER_MS', 0, 86_400_000),
    streamRetentionMs: integer(env, 'CHATFLUX_STREAM_RETENTION_MS', 1000, 86_400_000),
    streamLeaseMs: integer(env, 'CHATFLUX_STREAM_LEASE_MS', 500, 60_000),
  };
  for (const [name, value] of Object.entries(limits)) if (value !== undefined) Object.assign(config, { [name]: value });
  const metricsToken = text(env, 'CHATFLUX_METRICS_TOKEN');
  // A Bearer token is one word: one with a space inside could never be presented, and /metrics would stay shut.
  if (metricsToken !== undefined && /\s/.test(metricsToken)) {
    throw new ConfigError('CHATFLUX_METRICS_TOKEN must be one word without spaces (it is sent as `Authorization: Bearer <token>`): fix or unset it.');
  }
  if (metricsToken !== undefined) config.metricsToken = metricsToken;
  const redisUrl = text(env, 'CHATFLUX_REDIS_URL');
  if (redisUrl !== undefined && !/^(rediss?|unix):\/\//.test(redisUrl)) {
    throw new ConfigError('CHATFLUX_REDIS_URL must be a redis://, rediss:// or unix:// URL: fix or unset it.');
  }
  if (redisUrl !== undefined) config.redisUrl = redisUrl;
  const resumable = text(env, 'CHATFLUX_RESUMABLE');
  if (resumable !== undefined) {
    if (resumable !== 'true' && resumable !== 'false') throw new ConfigError(`CHATFLUX_RESUMABLE must be true or false, got ${JSON.stringify(resumable)}.`);
    config.resumable = resumable === 'true';
  }
  const otlpAll = text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined;
  const otlp = {
    traces: otlpAll || text(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined,
    metrics: otlpAll || text(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') !== undefined,
  };
  if (otlp.traces || otlp.metrics) config.otlp = otlp;
  const routes = loadRoutes(env);
  if (routes !== undefined) {
    config.routes = routes;
    const names = Object.values(routes).flatMap((route) => route.targets.flatMap((target) => (target.apiKeyEnv === undefined ? [] : [target.apiKeyEnv])));
    if (names.length > 0) config.routeKeys = Object.fromEntries(names.map((name) => [name, env[name]!.trim()]));
  }
  return config;
}
