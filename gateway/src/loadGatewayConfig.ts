import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { z } from 'zod';
import { ConfigError, type RequestPolicyConfig, PROVIDERS as PRESETS, type ProviderName } from 'chatflux';
import { GATEWAY_KEYS } from './GATEWAY_KEYS.js';
import { GATEWAY_SETTINGS } from './GATEWAY_SETTINGS.js';
import { checkRouteTable, loadRoutes, type GatewayRoute } from './loadRoutes.js';
import { readGatewayFile } from './readGatewayFile.js';
import { resolveWorkerCount } from './resolveWorkerCount.js';

/** The limits of one key in the gateway's `limits.perKey`. */
export interface GatewayKeyLimits {
  /** Requests admitted per minute. */
  requestsPerMinute?: number;
  /** Requests running at once. */
  maxConcurrent?: number;
  /** Weighted tokens per minute. */
  tokensPerMinute?: number;
  /** A token budget per UTC day. */
  tokensPerDay?: number;
  /** A token budget per UTC month. */
  tokensPerMonth?: number;
}

/** The gateway's per-key limits, as its config file and `CHATFLUX_*` variables set them (see `GatewayConfig.limits`). */
export interface GatewayLimits extends GatewayKeyLimits {
  /** The most answer tokens reserved at admission under token limits. Default 1024. */
  reserveOutputTokens?: number;
  /** Weighted tokens per minute per key and model, by model name. */
  perModel?: Record<string, { tokensPerMinute: number }>;
  /** The weights of input, cached input and output tokens. Default 1 each. */
  tokenWeights?: { input?: number; cachedInput?: number; output?: number };
  /** Each key's own limits, by the environment variable holding the key (resolved by `startGateway`). */
  perKey?: Record<string, GatewayKeyLimits>;
  /** `perKey` resolved: each key (secret) with its own limits. */
  keyRules?: Array<{ key: string } & GatewayKeyLimits>;
  /** Redis down: `local` (default), `open` or `closed`. */
  onStoreFailure?: 'local' | 'open' | 'closed';
  /** The processes sharing the limits, for the `local` policy. Default 1. */
  expectedInstances?: number;
  /** How long a running request's place lasts unrenewed, ms. Default 30000. */
  placeTtlMs?: number;
  /** How long an admission waits for Redis before the failure policy applies, ms. Default: the Redis store's (250). */
  storeTimeoutMs?: number;
}

/** Where the gateway gets its answers: the built-in emulator, or a provider preset (`PROVIDERS`). */
export type GatewayProvider = 'emulator' | ProviderName;

/**
 * The gateway's configuration, resolved by {@link loadGatewayConfig} from its config file (`--config`, keys such as
 * `upstream.retry`) and the environment variables over it (`CHATFLUX_MAX_RETRIES`): each field is one row of
 * `GATEWAY_SETTINGS`. A field left unset takes its default (`GatewayFileSchema`'s) where it is used.
 */
export interface GatewayConfig {
  /** The config file it was read from, if any (`--config FILE`, `CHATFLUX_CONFIG`). */
  configFile?: string;
  /** `CHATFLUX_WORKERS` / `process.workers`: how many processes serve the port (`auto` resolved to the cores). */
  workers?: number;
  /** `http.clientHeadersTimeoutMs` (file only): how long a client may take to send a request's headers. */
  clientHeadersTimeoutMs?: number;
  /** `serve.bodyLimit` (file only): the JSON body limit. */
  bodyLimit?: number | string;
  /** `serve.queryLimit` (file only): the longest `q` of `GET /chat/sse`. */
  queryLimit?: number;
  /** `serve.maxLogFieldChars` (file only): the longest string field of a log entry. */
  maxLogFieldChars?: number;
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
  /**
   * The per-key limits (`limits.requestsPerMinute`, `CHATFLUX_REQUESTS_PER_MINUTE`; `limits.maxConcurrent`,
   * `CHATFLUX_MAX_CONCURRENT`; `limits.perKey` (file only): each key's own, by the variable that holds it;
   * `limits.onStoreFailure`, `CHATFLUX_LIMITS_ON_STORE_FAILURE`; `limits.expectedInstances`,
   * `CHATFLUX_EXPECTED_INSTANCES`; `limits.placeTtlMs`, `CHATFLUX_LIMITS_PLACE_TTL_MS`; `limits.storeTimeoutMs`, `CHATFLUX_LIMITS_STORE_TIMEOUT_MS`), shared through Redis when
   * `CHATFLUX_REDIS_URL` is set. Absent when nothing is limited.
   */
  limits?: GatewayLimits;
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
   * timeout=…` (default 65000: longer than a balancer's 60 s idle timeout).
   */
  keepAliveTimeoutMs?: number;
  /** `CHATFLUX_MAX_CONCURRENT_PER_CLIENT`: requests one client (key, else address) may have running (default 32; `0`: no limit). */
  maxConcurrentPerClient?: number;
  /**
   * `CHATFLUX_SHUTDOWN_GRACE_MS`: on SIGTERM/SIGINT, how long requests in flight may still run before they end with
   * `shutting_down` (default 10000).
   */
  shutdownGraceMs?: number;
  /**
   * `CHATFLUX_EMULATOR_PACE_MS`: milliseconds between two streamed events of the built-in emulator (provider
   * `emulator` only; default 30: a provider's pace, so that the demo streams).
   */
  emulatorPaceMs?: number;
  /** `CHATFLUX_METRICS_TOKEN`: the Bearer token `GET /metrics` asks for (default none: `/metrics` is open, as `/healthz`). Secret. */
  metricsToken?: string;
  /**
   * `CHATFLUX_INSTANCE_ID`: this instance's id in its metrics (`service.instance.id`; `target_info` on `/metrics`),
   * default `<hostname>:<pid>` of the primary (of the process, without workers).
   */
  instanceId?: string;
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
   * `CHATFLUX_REDIS_URL` (`redis://…`, `rediss://…`): the shared stream log, so that every instance can
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


/** Options of {@link loadGatewayConfig}. */
export interface LoadGatewayConfigOptions {
  /** The YAML config file to read (`--config FILE`); default `CHATFLUX_CONFIG`, else none. */
  configFile?: string;
}

const PROVIDERS: readonly GatewayProvider[] = ['emulator', ...(Object.keys(PRESETS) as ProviderName[])];

const text = (env: Record<string, string | undefined>, name: string): string | undefined => {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
};

/**
 * A variable's value as its key's type (`GatewayFileSchema`): an integer within the key's range, a flag, a
 * comma-separated list, or a string; `undefined` when unset or empty.
 */
function fromEnv(env: Record<string, string | undefined>, name: string, key: string): unknown {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (name === 'CHATFLUX_WORKERS') return resolveWorkerCount(env);
  const field = GATEWAY_KEYS.get(key)!.inner;
  if (field instanceof z.ZodNumber) {
    const { minValue: min, maxValue: max } = field;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < (min ?? 0) || value > (max ?? Number.MAX_SAFE_INTEGER)) {
      throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}: fix or unset it.`);
    }
    return value;
  }
  if (field instanceof z.ZodBoolean) {
    const flag = raw.toLowerCase();
    if (flag === 'true' || flag === '1') return true;
    if (flag === 'false' || flag === '0') return false;
    throw new ConfigError(`${name} must be true or false (or 1 / 0), got ${JSON.stringify(env[name])}: fix or unset it.`);
  }
  if (field instanceof z.ZodArray) {
    const items = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
    return items.length === 0 ? undefined : items;
  }
  return raw;
}

/** Sets `value` at a dotted `path` of `target`, creating the objects on the way. */
function setIn(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target;
  for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
  at[keys[keys.length - 1]!] = value;
}

/** The value at a dotted `path` of `source`. */
const getIn = (source: unknown, path: string): unknown => path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], source);

/**
 * Reads the gateway's configuration: its YAML config file (`options.configFile`, else `CHATFLUX_CONFIG`; checked by
 * `readGatewayFile` against `GatewayFileSchema`), then the environment variables over it (`GATEWAY_SETTINGS`: each sets
 * one key — a container's overlay), then the checks across keys. Without a file it reads the environment alone, as it
 * always did: no provider and no base URL is the built-in emulator (`provider: emulator`).
 *
 * @param env - The environment (`process.env`).
 * @param options - The config file.
 * @returns The configuration: the settings given, the defaults left to where they are used (the port, the host, the
 *   heartbeat and the gateway keys always set).
 * @throws ConfigError naming what to fix: the variable, or the file's key and line (a bad number, an unknown provider
 *   or key, a missing base URL, a base URL with credentials in it, a secret written in the file).
 */
export function loadGatewayConfig(env: Record<string, string | undefined>, options: LoadGatewayConfigOptions = {}): GatewayConfig {
  const configFile = options.configFile ?? text(env, 'CHATFLUX_CONFIG');
  const file = configFile === undefined ? undefined : readGatewayFile(configFile, env);
  const values = new Map<string, unknown>(); // key → value, the file's then the environment's over it
  const source = new Map<string, string>(); // key → the variable that set it (absent: the file did)
  for (const setting of GATEWAY_SETTINGS) {
    const inFile = getIn(file?.doc, setting.key);
    if (inFile !== undefined) values.set(setting.key, inFile === 'auto' && setting.key === 'process.workers' ? availableParallelism() : inFile);
    const inEnv = setting.env === undefined ? undefined : fromEnv(env, setting.env, setting.key);
    if (inEnv !== undefined) {
      values.set(setting.key, inEnv);
      source.set(setting.key, setting.env!);
    }
  }
  /** How an error names a key: its variable when the environment set it (or nothing did), else the key and its line. */
  const named = (key: string): string => {
    const variable = source.get(key) ?? GATEWAY_SETTINGS.find((setting) => setting.key === key)?.env;
    return file === undefined || source.has(key) || !values.has(key) ? (variable ?? key) : file.where(key.split('.'));
  };
  const value = <T>(key: string): T | undefined => values.get(key) as T | undefined;

  const baseUrl = value<string>('upstream.baseUrl');
  const provider = value<string>('upstream.provider') ?? (baseUrl === undefined ? 'emulator' : 'openai-compatible');
  if (!PROVIDERS.includes(provider as GatewayProvider)) {
    throw new ConfigError(`${named('upstream.provider')} must be one of ${PROVIDERS.join(', ')}, got ${JSON.stringify(provider)}.`);
  }
  if (provider === 'openai-compatible' && baseUrl === undefined) {
    throw new ConfigError(
      source.has('upstream.provider') || file === undefined
        ? 'CHATFLUX_PROVIDER=openai-compatible needs CHATFLUX_BASE_URL (e.g. https://host/v1).'
        : `${named('upstream.provider')}: openai-compatible needs upstream.baseUrl (e.g. https://host/v1), or CHATFLUX_BASE_URL.`,
    );
  }
  if (baseUrl !== undefined && !/^https?:\/\//.test(baseUrl)) {
    throw new ConfigError(`${named('upstream.baseUrl')} must be an http(s) URL, got ${JSON.stringify(baseUrl)}.`);
  }
  // Credentials in the URL are never sent (undici ignores them) and would be printed with it: refused, not echoed.
  if (baseUrl !== undefined && /^https?:\/\/[^/?#]*@/i.test(baseUrl)) {
    throw new ConfigError(`${named('upstream.baseUrl')} must not hold credentials (user:password@host): they are not sent upstream; put the key in ${named('upstream.apiKey')}.`);
  }
  const corsOrigins = value<string[]>('http.corsOrigins');
  const notOrigin = corsOrigins?.find((origin) => !/^https?:\/\/[^/\s]+$/.test(origin) || !URL.canParse(origin));
  if (notOrigin !== undefined) {
    throw new ConfigError(`${named('http.corsOrigins')} takes origins such as https://app.example.com (scheme and host, no path), got ${JSON.stringify(notOrigin)}.`);
  }
  const tokenSecret = value<string>('serve.tokenSecret');
  if (tokenSecret !== undefined && tokenSecret.length < 16) throw new ConfigError(`${named('serve.tokenSecret')} must be at least 16 characters (a random string): fix or unset it.`);
  // Checked here, not first by createRedisStreamLog at start: --check-config must fail on it too. Never echoed (a password).
  const redisUrl = value<string>('streams.redisUrl');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError(`${named('streams.redisUrl')} must be a redis:// or rediss:// URL (redis://[:password@]host:port/db): fix or unset it.`);
  }
  const stripFields = value<string[]>('serve.requestPolicy.stripFields');
  const vital = stripFields?.find((field) => field === 'model' || field === 'messages');
  if (vital !== undefined) {
    throw new ConfigError(`${named('serve.requestPolicy.stripFields')} cannot strip ${vital}: every request needs it (restrict models with ${named('serve.requestPolicy.allowedModels')}).`);
  }
  // A Bearer token is one word: one with a space inside could never be presented, and /metrics would stay shut.
  if (/\s/.test(value<string>('telemetry.metricsToken') ?? '')) {
    throw new ConfigError(`${named('telemetry.metricsToken')} must be one word without spaces (it is sent as \`Authorization: Bearer <token>\`): fix or unset it.`);
  }

  const defaultOf = (key: string): unknown => GATEWAY_KEYS.get(key)!.schema.parse(undefined);
  const config: GatewayConfig = {
    port: value<number>('http.port') ?? (defaultOf('http.port') as number),
    host: value<string>('http.host') ?? (defaultOf('http.host') as string),
    provider: provider as GatewayProvider,
    gatewayKeys: [],
    heartbeatMs: value<number>('serve.heartbeatMs') ?? (defaultOf('serve.heartbeatMs') as number),
  };
  if (configFile !== undefined) config.configFile = configFile;
  for (const setting of GATEWAY_SETTINGS) {
    const given = values.get(setting.key);
    if (given !== undefined) setIn(config as unknown as Record<string, unknown>, setting.field, given);
  }
  config.provider = provider as GatewayProvider;
  // As a browser writes its Origin header (RFC 6454): host in lower case, no default port. Compared verbatim, an
  // origin written otherwise (`https://App.example.com`, `https://app.example.com:443`) would never match.
  if (corsOrigins !== undefined) config.corsOrigins = corsOrigins.map((origin) => new URL(origin).origin);
  const providerKey = provider === 'emulator' ? undefined : PRESETS[provider as ProviderName].apiKeyEnv;
  const apiKey = config.apiKey ?? (providerKey === undefined ? undefined : text(env, providerKey));
  if (apiKey !== undefined) config.apiKey = apiKey;
  if (config.requestPolicy !== undefined && Object.keys(config.requestPolicy).length === 0) delete config.requestPolicy;
  const perKey = config.limits?.perKey ?? {};
  const keyRules: NonNullable<GatewayLimits['keyRules']> = [];
  for (const [variable, rule] of Object.entries(perKey)) {
    const key = text(env, variable);
    if (key === undefined) throw new ConfigError(`${named('limits.perKey')}: ${variable} holds no key (it is not set): set it to one of the gateway's keys, or remove its limits.`);
    if (!config.gatewayKeys.includes(key)) throw new ConfigError(`${named('limits.perKey')}: ${variable} holds a key that is not one of serve.apiKeys (CHATFLUX_GATEWAY_KEYS): its limits would never apply.`);
    keyRules.push({ key, ...rule });
  }
  if (config.limits !== undefined && keyRules.length > 0) config.limits.keyRules = keyRules;
  const given = config.limits;
  const limited =
    given !== undefined &&
    (['requestsPerMinute', 'maxConcurrent', 'tokensPerMinute', 'tokensPerDay', 'tokensPerMonth'] as const).some((field) => given[field] !== undefined) ||
    Object.keys(perKey).length > 0 ||
    Object.keys(given?.perModel ?? {}).length > 0;
  if (!limited) delete config.limits;
  const otlpAll = text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined;
  const otlp = {
    traces: otlpAll || text(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined,
    metrics: otlpAll || text(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') !== undefined,
  };
  if (otlp.traces || otlp.metrics) config.otlp = otlp;
  const fileRoutes = file?.doc['routes'];
  const routes =
    loadRoutes(env) ??
    (fileRoutes === undefined || file === undefined ? undefined : checkRouteTable(fileRoutes, basename(file.path), env, (path) => file.where(['routes', ...path])));
  if (routes !== undefined) {
    config.routes = routes;
    const names = Object.values(routes).flatMap((route) => route.targets.flatMap((target) => (target.apiKeyEnv === undefined ? [] : [target.apiKeyEnv])));
    if (names.length > 0) config.routeKeys = Object.fromEntries(names.map((name) => [name, env[name]!.trim()]));
  }
  return config;
}
