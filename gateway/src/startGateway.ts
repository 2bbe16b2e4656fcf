import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createServer, maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import express, { type Request, type Response } from 'express';
import { throwError } from 'rxjs';
import { createChatClient, createMemoryStreamLog, type ChatClientConfig, type ChatRequestLog, type ChatRouteEvent, type ChatWireFormat, routeByModel, ConfigError, ShutdownError, type ErrorBody, type StreamLog, type RateLimitsConfig, type RateLimitStore } from 'chatflux';
import { chatRouter } from 'chatflux/express';
import { clientKeyOfKey, createGracefulShutdown, CHAT_WIRES, matchesBearerKey } from 'chatflux/node';
import { createGatewayRoutes } from './createGatewayRoutes.js';
import { GATEWAY_DEFAULTS } from './GATEWAY_DEFAULTS.js';
import { listen } from './listen.js';
import { packageVersion } from './packageVersion.js';
import type { GatewayConfig, GatewayProvider } from './loadGatewayConfig.js';
import { crossOriginPolicy } from './crossOriginPolicy.js';
import { pageSecurityHeaders } from './pageSecurityHeaders.js';
import { presetRequestFields } from './presetRequestFields.js';
import pino, { type DestinationStream } from 'pino';
import { createGatewayTelemetry } from './createGatewayTelemetry.js';
import { connectPrimaryRateLimitStore } from './primaryRateLimitStore.js';

/** A running gateway. */
export interface RunningGateway {
  /** `http://host:port` (no trailing slash). */
  url: string;
  /** The base URL of the in-process emulator, when the provider is `emulator` or a route has an `emulator` target. */
  emulatorUrl?: string;
  /**
   * Graceful shutdown: stop accepting connections, let requests in flight finish within `graceMs` (default 10000),
   * then end the rest with a `ShutdownError` — a 503 with `Retry-After` in the endpoint's error format when nothing
   * was sent yet, the in-band `shutting_down` error frame on a committed stream — and close every connection, the
   * client and the emulator. Requests arriving meanwhile on open connections get that 503 at once.
   */
  close(graceMs?: number): Promise<void>;
}

/** Options of {@link startGateway} beyond the environment's configuration. */
export interface StartGatewayOptions {
  /** Receives each request's log entry (default: one JSON line on stdout). */
  log?: (entry: ChatRequestLog) => void;
  /** Merged into the chat client's config (e.g. `headers` for an emulator scenario in tests). */
  client?: Partial<ChatClientConfig>;
  /** Where the default log sink (pino: one JSON line per request, with `trace_id`) writes (default stdout). */
  logStream?: DestinationStream;
  /** Receives every route attempt and circuit-breaker transition of `config.routes` (for metrics). */
  onRouteEvent?: (event: ChatRouteEvent) => void;
  /** Headers set on every response (with `CHATFLUX_DEBUG_WORKER_HEADER`, a clustered worker names itself: `X-Chatflux-Worker: <index>`). */
  responseHeaders?: Readonly<Record<string, string>>;
  /**
   * How long a client may take to send a request's headers, from their first byte, in ms (1 to 300000; default
   * the config's `http.clientHeadersTimeoutMs`, else 60000, Node's own): slower gets 408 and its connection closed. An idle
   * kept-alive connection is not timed by it (only by `CHATFLUX_KEEP_ALIVE_TIMEOUT_MS`).
   */
  clientHeadersTimeoutMs?: number;
}

const PAGE_PATH = join(__dirname, 'public', 'index.html');
/** The second demo page (`/ui`): `POST /chat/ui`'s UI message stream (what `useChat` reads), spoken without React. */
const UI_PAGE_PATH = join(__dirname, 'public', 'ui.html');

/** The message of the `ShutdownError` every response still open (or arriving) during a shutdown ends with. */
const SHUTTING_DOWN = 'the gateway is shutting down; retry the request';

/** How long the gateway waits at start for Redis (`CHATFLUX_REDIS_URL`) to answer before it serves anyway, in ms. */
const REDIS_CONNECT_WAIT_MS = 2000;
/** How often at most the gateway logs that Redis is unreachable, in ms. */
const REDIS_WARN_EVERY_MS = 60_000;

/** What `GET /chat/sse` without `q` asks for: the spec's `new EventSource('/chat/sse')` then streams a demo answer. */
const DEMO_REQUEST = { messages: [{ role: 'user' as const, content: 'Hello! Please introduce yourself in a few sentences.' }] };

/** The wire of a chat path's last segment (`sse`, `stream`); anything else answers as JSON does. */
const wireOf = (segment: string | undefined): ChatWireFormat => (segment === 'sse' ? 'sse' : segment === 'stream' ? 'ndjson' : 'json');

/**
 * Starts the gateway: an Express app with the chat endpoints (`chatRouter`), `GET /healthz`, and the demo page at `/`,
 * in front of the configured provider — or of the built-in emulator, started in-process at a provider's pace
 * (`emulatorPaceMs`, default 30 ms between events), when the provider is `emulator`.
 *
 * @param config - The configuration (see `loadGatewayConfig`).
 * @param options - Log sink and client overrides.
 * @returns The running gateway, once it listens.
 * @throws ConfigError naming the setting when it cannot listen (port in use, not permitted, host not local); nothing
 *   is left running then.
 */
export async function startGateway(config: GatewayConfig, options: StartGatewayOptions = {}): Promise<RunningGateway> {
  const headersTimeout = options.clientHeadersTimeoutMs ?? config.clientHeadersTimeoutMs ?? GATEWAY_DEFAULTS.http.clientHeadersTimeoutMs;
  if (typeof headersTimeout !== 'number' || !Number.isInteger(headersTimeout) || headersTimeout < 1 || headersTimeout > 300_000) {
    throw new ConfigError(`clientHeadersTimeoutMs must be an integer from 1 to 300000 (ms; Node's requestTimeout is 300000), got ${String(headersTimeout)}.`);
  }
  // The built-in emulator serves for as long as the gateway runs: it keeps no request log (bodies, headers), and
  // takes fault scenarios from the requests only when the configuration asks for it.
  const routesUseEmulator = Object.values(config.routes ?? {}).some((route) => route.targets.some((t) => t.provider === 'emulator'));
  // `provider: emulator` (the default without a provider, a base URL or a key): the emulator's code is loaded only then.
  const emulator =
    config.provider === 'emulator' || routesUseEmulator
      ? await (await import('chatflux/testing')).startEmulator({
          dialect: 'deepseek',
          seed: 1,
          requestLog: false,
          paceMs: config.emulatorPaceMs ?? GATEWAY_DEFAULTS.upstream.emulator.paceMs,
          requestScenarios: config.emulatorScenarios === true,
        })
      : undefined;
  const builtIn = config.provider === 'emulator' ? emulator : undefined; // the emulator as the default provider
  const clientConfig: ChatClientConfig = builtIn === undefined ? { provider: config.provider as Exclude<GatewayProvider, 'emulator'> } : { baseUrl: builtIn.url, model: 'deepseek-chat' };
  if (config.baseUrl !== undefined && builtIn === undefined) clientConfig.baseUrl = config.baseUrl;
  if (config.apiKey !== undefined && builtIn === undefined) clientConfig.apiKey = config.apiKey;
  if (config.model !== undefined) clientConfig.model = config.model;
  if (config.maxRetries !== undefined) clientConfig.retry = config.maxRetries;
  if (config.requireDone !== undefined) clientConfig.requireDone = config.requireDone;
  clientConfig.timeouts = {};
  if (config.firstChunkTimeoutMs !== undefined) clientConfig.timeouts.firstChunk = config.firstChunkTimeoutMs;
  if (config.idleTimeoutMs !== undefined) clientConfig.timeouts.idle = config.idleTimeoutMs;
  if (config.headersTimeoutMs !== undefined) clientConfig.timeouts.headers = config.headersTimeoutMs;
  if (config.silenceTimeoutMs !== undefined) clientConfig.timeouts.silence = config.silenceTimeoutMs;
  if (config.deadlineMs !== undefined) clientConfig.timeouts.deadline = config.deadlineMs;
  if (config.jsonTimeoutMs !== undefined) clientConfig.timeouts.json = config.jsonTimeoutMs;
  if (config.maxAnswerChars !== undefined) clientConfig.maxAnswerChars = config.maxAnswerChars;
  if (config.upstreamConnections !== undefined) clientConfig.connections = config.upstreamConnections;
  if (config.connectionWaitMs !== undefined) clientConfig.connectionWaitMs = config.connectionWaitMs;
  // Observability: spans and metrics on the gateway's own providers, /metrics, traceparent in and out, JSON logs.
  const telemetry = createGatewayTelemetry({
    otlp: config.otlp,
    models: configuredModels(config),
    ...(config.instanceId === undefined ? {} : { instanceId: config.instanceId }),
    ...(cluster.worker === undefined ? {} : { worker: cluster.worker.id }),
  });
  const defaultClient = createChatClient({ ...clientConfig, telemetry: telemetry.client, ...options.client });
  telemetry.observePool(() => defaultClient.pool);
  // The routes' circuit breakers: shared by every instance through Redis when CHATFLUX_REDIS_URL is set.
  const breakerStore = config.routes === undefined || config.redisUrl === undefined ? undefined : (await import('chatflux/redis')).createRedisBreakerStore({ url: config.redisUrl });
  const client =
    config.routes === undefined
      ? defaultClient
      : routeByModel(
          createGatewayRoutes(
            config,
            emulator?.url,
            (event) => {
              telemetry.countRouteEvent(event);
              options.onRouteEvent?.(event);
            },
            telemetry.client,
            breakerStore === undefined
              ? {}
              : {
                  breakerStore,
                  onBreakerStoreError: (event) => {
                    const line = { state: event.state, ...(event.error === undefined ? {} : { err: String((event.error as Error).message ?? event.error) }) };
                    if (event.state === 'failing') logger.warn(line, "the shared circuit breakers' store (Redis) is unreachable: each process runs its own breakers");
                    else logger.info(line, "the shared circuit breakers' store (Redis) answers again");
                  },
                },
          ),
          defaultClient,
        );
  const shutdown = createGracefulShutdown();
  const page = readFileSync(PAGE_PATH, 'utf8');
  const uiPage = readFileSync(UI_PAGE_PATH, 'utf8');
  const logger = pino(
    { base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) }, mixin: () => telemetry.traceIds() ?? {} },
    options.logStream ?? process.stdout,
  );
  const sink = options.log ?? ((entry: ChatRequestLog) => logger.info(entry, 'request'));
  const log = (entry: ChatRequestLog): void => {
    telemetry.countRequest(entry);
    sink(entry);
  };

  // Resumable answers: a log every instance shares (Redis), else one of this process; off with CHATFLUX_RESUMABLE=false.
  const streamLog = await openStreamLog(config, (message) => logger.warn(message));
  if (streamLog !== undefined) telemetry.observeStreamLog(() => streamLog.stats());

  // Per-key limits: shared through Redis when CHATFLUX_REDIS_URL is set, else the primary's (CHATFLUX_WORKERS), else this process's.
  const limitStore = await openLimitStore(config);
  const limits = limitsOf(config, limitStore, (event) => {
    telemetry.countLimitsStoreEvent(event);
    const line = { policy: event.policy, state: event.state, ...(event.error === undefined ? {} : { err: String((event.error as Error).message ?? event.error) }) };
    const where = config.redisUrl === undefined ? "the primary's rate limits store" : "the shared rate limits' store (Redis)";
    if (event.state === 'failing') logger.warn(line, `${where} is unreachable: policy ${event.policy}`);
    else logger.info(line, `${where} answers again`);
  }, (event) => {
    telemetry.countLimitsSettle(event);
    // a cancelled or cut answer is charged for what it emitted: an estimate, said so; a dead process's reservations too
    if (event.estimated && event.used > 0) logger.info({ reserved: event.reserved, used: event.used, estimated: true }, 'tokens charged for an answer cut or cancelled: estimated from what it emitted');
    if (event.expiredReservations > 0) logger.warn({ expired: event.expiredReservations }, 'token reservations of a process that died were charged at their estimate');
  });

  const app = express();
  app.disable('x-powered-by');
  // Telemetry and the cross-origin policy before anything answers: every answer is counted, and a page of an allowed
  // origin reads every answer, the 503 of a shutdown included.
  app.use((req, res, next) => telemetry.around(req, res, next));
  app.use(crossOriginPolicy(config.corsOrigins ?? []));
  app.use((req, res, next) => {
    if (shutdown.isDraining) return refuseWhileClosing(req, res);
    void shutdown.track(new Promise<void>((resolve) => res.once('close', () => resolve())));
    next();
  });
  app.get('/metrics', (req, res) => {
    if (config.metricsToken !== undefined && !matchesBearerKey(req.headers.authorization, [config.metricsToken])) {
      return void res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: { message: 'GET /metrics needs the CHATFLUX_METRICS_TOKEN as a Bearer token', type: 'invalid_request_error', code: 'unauthorized' } });
    }
    telemetry.serveMetrics(req, res);
  });
  const health = { status: 'ok', provider: config.provider, version: packageVersion() };
  app.get('/healthz', (_req, res) => void res.json(health));
  const pageHeaders = pageSecurityHeaders(page);
  app.get('/', (_req, res) => void res.type('html').set('Cache-Control', 'no-cache').set(pageHeaders).send(page));
  const uiPageHeaders = pageSecurityHeaders(uiPage);
  app.get('/ui', (_req, res) => void res.type('html').set('Cache-Control', 'no-cache').set(uiPageHeaders).send(uiPage));
  app.use(
    chatRouter({
      client,
      ...(config.model === undefined ? {} : { model: config.model }),
      ...(config.routes === undefined ? {} : { models: Object.keys(config.routes) }), // GET /v1/models lists the routes
      apiKeys: config.gatewayKeys,
      heartbeatMs: config.heartbeatMs,
      ...(config.maxConcurrentPerClient === undefined ? {} : { maxConcurrentPerClient: config.maxConcurrentPerClient }),
      ...(config.bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs: config.bodyTimeoutMs }),
      ...(config.writeStallTimeoutMs === undefined ? {} : { writeStallTimeoutMs: config.writeStallTimeoutMs }),
      ...(config.tokenSecret === undefined ? {} : { tokenSecret: config.tokenSecret }),
      ...(config.tokenTtlMs === undefined ? {} : { tokenTtlMs: config.tokenTtlMs }),
      ...(config.bodyLimit === undefined ? {} : { bodyLimit: config.bodyLimit }),
      ...(config.queryLimit === undefined ? {} : { queryLimit: config.queryLimit }),
      ...(config.maxLogFieldChars === undefined ? {} : { maxLogFieldChars: config.maxLogFieldChars }),
      demoRequest: DEMO_REQUEST,
      secrets: config.apiKey === undefined ? [] : [config.apiKey],
      signal: shutdown.signal,
      log,
      onHeartbeat: telemetry.countHeartbeat,
      ...(config.requestPolicy === undefined ? {} : { requestPolicy: config.requestPolicy }),
      ...(config.allowSeveralChoices === undefined ? {} : { allowSeveralChoices: config.allowSeveralChoices }),
      ...(limits === undefined ? {} : { limits }),
      ...(streamLog === undefined ? {} : { resumable: { log: streamLog, abandonAfterMs: config.abandonAfterMs ?? GATEWAY_DEFAULTS.streams.abandonAfterMs } }),
    }),
  );
  app.use((_req, res) => void res.status(404).json({ error: { message: 'not found', type: 'invalid_request_error', code: 'not_found' } }));

  // Not app.listen: Express 5 calls its callback with a listen error too, as if listening.
  // Each request and response gets Express's fields first: one shared hidden class instead of one each.
  // A request's headers must arrive within `headersTimeout` of their first byte (Node >= 18 times a request from its
  // first byte, never an idle kept-alive connection), checked every `connectionsCheckingInterval` (Node's 30 s, or
  // half a shorter deadline): a client sending its headers a byte at a time holds a socket for at most ~1.5 times it,
  // however long idle connections are kept. The whole request's deadline stays Node's (300 s).
  const connectionsCheckingInterval = Math.min(30_000, Math.ceil(headersTimeout / 2));
  const server = createServer({ headersTimeout, connectionsCheckingInterval }, (req, res) => {
    presetRequestFields(req, res);
    app(req, res);
  });
  // Idle client connections outlive a balancer's (AWS ALB: 60 s), so that it never reuses one the gateway has just
  // closed (a reset, a 502 to its client); Node announces it in `Keep-Alive: timeout=…`.
  server.keepAliveTimeout = config.keepAliveTimeoutMs ?? GATEWAY_DEFAULTS.http.keepAliveTimeoutMs;
  const { responseHeaders } = options;
  if (responseHeaders !== undefined) {
    server.prependListener('request', (_req, res) => {
      for (const [name, value] of Object.entries(responseHeaders)) res.setHeader(name, value);
    });
  }
  const port = await listen(server, config.port, config.host).catch(async (error: unknown) => {
    await client.close();
    await streamLog?.close();
    await limitStore?.close();
    await breakerStore?.close();
    await emulator?.close();
    await telemetry.shutdown();
    throw error;
  });
  server.on('clientError', answerClientError);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closed: Promise<void> | undefined;

  const close = async (graceMs = 10_000): Promise<void> => {
    const drained = shutdown.drain(graceMs, new ShutdownError(SHUTTING_DOWN)); // refuses new requests from now on
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
    await drained;
    clearInterval(idleSweep);
    server.closeAllConnections();
    await serverClosed;
    await client.close();
    await streamLog?.close();
    await limitStore?.close();
    await breakerStore?.close();
    await emulator?.close();
    await telemetry.shutdown();
  };
  const gateway: RunningGateway = {
    url: `http://${host}:${port}`,
    close: (graceMs) => (closed ??= close(graceMs)),
  };
  if (emulator !== undefined) gateway.emulatorUrl = emulator.url;
  return gateway;
}

/**
 * The gateway's stream log (resumable answers): Redis when `CHATFLUX_REDIS_URL` is set (every instance resumes every
 * answer), else in memory (this instance only); none with `CHATFLUX_RESUMABLE=false`.
 */
async function openStreamLog(config: GatewayConfig, warn: (message: string) => void): Promise<StreamLog | undefined> {
  if (config.resumable === false) return undefined;
  const retentionMs = config.streamRetentionMs ?? GATEWAY_DEFAULTS.streams.retentionMs;
  if (config.redisUrl === undefined) return createMemoryStreamLog({ retentionMs });
  const { createRedisStreamLog } = await import('chatflux/redis');
  // Redis unreachable (down, a wrong password, a wrong host) is said in the log — at most once a minute, not per
  // reconnect, and never with the URL's password — else the only sign is `Chatflux-Resumable: local` on each answer.
  const url = URL.canParse(config.redisUrl) ? new URL(config.redisUrl) : undefined;
  const password = url === undefined ? '' : decodeURIComponent(url.password);
  let warnedAt = Number.NEGATIVE_INFINITY;
  const unreachable = (reason: string): void => {
    if (Date.now() - warnedAt < REDIS_WARN_EVERY_MS) return;
    warnedAt = Date.now();
    const said = password === '' ? reason : reason.split(password).join('[redacted]');
    warn(`stream log: Redis at ${url?.host ?? '(the configured URL)'} is unreachable (${said}); answers are resumable on this instance only until it answers`);
  };
  const log = createRedisStreamLog({
    url: config.redisUrl,
    retentionMs,
    ...(config.streamLeaseMs === undefined ? {} : { leaseMs: config.streamLeaseMs }),
    onError: (error) => unreachable(error.message),
  });
  // The first answers are resumable everywhere once Redis answers: wait for it a little, never long (a Redis that is
  // down at start leaves the answers local-only, said in their headers, until it comes back).
  for (const deadline = Date.now() + REDIS_CONNECT_WAIT_MS; log.health() !== 'shared' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (log.health() !== 'shared') unreachable(`no answer within ${REDIS_CONNECT_WAIT_MS} ms`);
  return log;
}

/**
 * The shared store of the per-key limits, when something is limited: Redis when `CHATFLUX_REDIS_URL` is set (every
 * instance), else in a `CHATFLUX_WORKERS` worker the primary's (every worker of this gateway); else none (the serving
 * core's memory store, this process's).
 */
async function openLimitStore(config: GatewayConfig): Promise<RateLimitStore | undefined> {
  if (config.limits === undefined) return undefined;
  if (config.redisUrl === undefined) return cluster.isWorker ? connectPrimaryRateLimitStore() : undefined;
  const { createRedisRateLimitStore } = await import('chatflux/redis');
  const commandTimeoutMs = config.limits.storeTimeoutMs;
  return createRedisRateLimitStore({ url: config.redisUrl, ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }) });
}

/**
 * The serving options' `limits` of the gateway's config (`limits.*`): the defaults, each key's own (by the variable
 * holding it: its client is `key:<hash>`, as the library counts a key), the store and the failure policy.
 */
function limitsOf(
  config: GatewayConfig,
  store: RateLimitStore | undefined,
  onStoreError: NonNullable<RateLimitsConfig['onStoreError']>,
  onSettle: NonNullable<RateLimitsConfig['onSettle']>,
): RateLimitsConfig | undefined {
  const given = config.limits;
  if (given === undefined) return undefined;
  const perClient = Object.fromEntries((given.keyRules ?? []).map(({ key, ...rule }) => [clientKeyOfKey(key), rule]));
  const rules = Object.fromEntries((['requestsPerMinute', 'maxConcurrent', 'tokensPerMinute', 'tokensPerDay', 'tokensPerMonth'] as const).flatMap((field) => (given[field] === undefined ? [] : [[field, given[field]]])));
  return {
    ...rules,
    perClient,
    ...(given.perModel === undefined ? {} : { perModel: given.perModel }),
    ...(given.tokenWeights === undefined ? {} : { tokenWeights: given.tokenWeights }),
    reserveOutputTokens: given.reserveOutputTokens ?? GATEWAY_DEFAULTS.limits.reserveOutputTokens,
    ...(store === undefined ? {} : { store }),
    onStoreFailure: given.onStoreFailure ?? GATEWAY_DEFAULTS.limits.onStoreFailure,
    expectedInstances: given.expectedInstances ?? GATEWAY_DEFAULTS.limits.expectedInstances,
    placeTtlMs: given.placeTtlMs ?? GATEWAY_DEFAULTS.limits.placeTtlMs,
    onStoreError,
    onSettle,
  };
}

/**
 * The model names the operator configured — `CHATFLUX_MODEL`, `CHATFLUX_ALLOWED_MODELS`, the routes' names and their
 * targets' models — which the metrics may name (any other is `other`: a client's model name must not add a series).
 */
function configuredModels(config: GatewayConfig): string[] {
  const routes = Object.entries(config.routes ?? {}).flatMap(([name, route]) => [name, ...route.targets.flatMap((target) => (target.model === undefined ? [] : [target.model]))]);
  return [...(config.model === undefined ? [] : [config.model]), ...(config.requestPolicy?.allowedModels ?? []), ...routes];
}

/**
 * Answers a request that arrives on an open connection while the gateway shuts down: 503 `shutting_down` with
 * `Retry-After` and `Connection: close`, in the endpoint's error format and with its Content-Type (SSE `event: error`
 * + `data: [DONE]` on `/chat/sse`, the NDJSON error line on `/chat/stream`, JSON elsewhere).
 */
function refuseWhileClosing(req: Request, res: Response): void {
  res.setHeader('Connection', 'close');
  const refusal = throwError(() => new ShutdownError(SHUTTING_DOWN));
  const endpoint = /^\/chat\/(sse|stream)\/?$/i.exec(req.path)?.[1]?.toLowerCase();
  void CHAT_WIRES[wireOf(endpoint)].send(res, refusal, {});
}


/**
 * Answers a request Node's HTTP parser refused (headers over Node's `maxHeaderSize`, 16 KB by default → 431; headers not
 * complete within `headersTimeout` → 408 `request_timeout`; anything else malformed → 400)
 * in the endpoint's error format, as every other refusal, instead of Node's bare status line; then closes the
 * connection. Nothing is written when a response of that connection has already started.
 */
function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const tooSlow = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'; // headers (or the request) past Node's deadline
  const status = tooLarge ? 431 : tooSlow ? 408 : 400;
  const body: ErrorBody = tooLarge
    ? { message: `the request headers are larger than the server accepts (${Math.round(maxHeaderSize / 1024)} KB)`, type: 'invalid_request_error', code: 'headers_too_large' }
    : tooSlow
      ? { message: 'the request did not arrive in time', type: 'invalid_request_error', code: 'request_timeout' }
      : { message: 'malformed HTTP request', type: 'invalid_request_error', code: 'invalid_request' };
  const endpoint = /^[A-Z]+ \/chat\/(stream|sse)(?:[ ?]|$)/.exec(error.rawPacket?.toString('latin1', 0, 64) ?? '')?.[1];
  const { format } = CHAT_WIRES[wireOf(endpoint)];
  const type = format.headers['Content-Type'] ?? 'application/json';
  const text = format.encodeError(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
