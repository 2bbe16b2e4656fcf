import { hostname } from 'node:os';
import type { ChatRequestLog, ChatRouteEvent, RateLimitSettleEvent, RateLimitStoreEvent, StreamLogStats, TelemetryConfig } from 'chatflux';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, defaultTextMapGetter, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { joinClusterMetrics, toPromClientMetrics } from './clusterMetrics.js';
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The gateway's own OpenTelemetry: providers, the Prometheus exporter, and its per-request instruments. */
export interface GatewayTelemetry {
  /** For the chat client (`ChatClientConfig.telemetry`): the gateway's providers and propagator. */
  client: TelemetryConfig;
  /**
   * Serves `GET /metrics` in Prometheus' text format: this process's metrics, or under `CHATFLUX_WORKERS` the whole
   * gateway's (every worker's, summed by the primary; 503 when the primary does not answer).
   */
  serveMetrics(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Runs `next` inside the request's SERVER span, a child of the client's W3C `traceparent` when it sent one; counts
   * the chat request in flight until the response closes.
   */
  around(req: IncomingMessage & { path?: string }, res: ServerResponse, next: () => void): void;
  /**
   * Counts one SSE heartbeat comment written (`chatflux.gateway.heartbeats`, by endpoint): `: ping` on `/chat/sse`,
   * `: keep-alive` on `/v1/chat/completions` — the serving core's `onHeartbeat`.
   */
  countHeartbeat(endpoint: string): void;
  /**
   * Counts a finished chat request (`chatflux.gateway.requests`, by endpoint, method, status, result and, when it
   * failed, `error.type`: the error's bounded `kind`, never a provider's own code).
   */
  countRequest(entry: ChatRequestLog): void;
  /** Reports the upstream pool (connections in use, requests waiting) through this callback. */
  observePool(read: () => { inUse: number; waiting: number } | undefined): void;
  /**
   * Reports the stream log's counters (resumable answers): streams opened, streams degraded to local-only resumability
   * (the shared log unreachable, its queue full, or a stream past its cap), store commands that failed, producers lost.
   */
  observeStreamLog(read: () => StreamLogStats): void;
  /**
   * Counts an outage of the shared rate limits' store (`chatflux.limits.store.failures`, by the policy applied) and
   * says whether it fails now (`chatflux.limits.store.failing`: 1 while it does).
   */
  countLimitsStoreEvent(event: RateLimitStoreEvent): void;
  /**
   * Counts the tokens a request under token limits was charged (`chatflux.limits.tokens.charged`, `estimated` true
   * for a cancelled or cut answer charged for what it emitted) and the reservations of dead processes charged at their
   * estimate (`chatflux.limits.reservations.expired`).
   */
  countLimitsSettle(event: RateLimitSettleEvent): void;
  /** Counts a route's event: attempts by outcome, circuit breaker transitions by the state entered. */
  countRouteEvent(event: ChatRouteEvent): void;
  /** The active span's trace and span ids, for a log line. */
  traceIds(): { trace_id: string; span_id: string } | undefined;
  /**
   * Flushes and stops the exporters, waiting at most `SHUTDOWN_FLUSH_MS` (500 ms): an OTLP collector that does not
   * answer must not hold a graceful shutdown for the exporters' own 10 s timeout (what it has not taken is dropped).
   */
  shutdown(): Promise<void>;
}

/** Options of {@link createGatewayTelemetry}. */
export interface GatewayTelemetryConfig {
  /** Export traces and metrics over OTLP/HTTP (the exporters read `OTEL_EXPORTER_OTLP_*` themselves). */
  otlp?: { traces: boolean; metrics: boolean } | undefined;
  /** `service.name` (default `OTEL_SERVICE_NAME`, else `chatflux-gateway`). */
  serviceName?: string;
  /**
   * The instance's id (`CHATFLUX_INSTANCE_ID`; default `<hostname>:<pid>` of this process): `service.instance.id` of
   * the metrics (`target_info` on `/metrics`). A worker of `CHATFLUX_WORKERS` (`worker` set) exports over OTLP as
   * `<instanceId>/<worker>` (each worker's cumulative counters are a series of their own), and its `/metrics` answers
   * for the whole instance, under `instanceId`.
   */
  instanceId?: string;
  /** This process's node:cluster worker index, when it is one of `CHATFLUX_WORKERS`: `/metrics` then aggregates. */
  worker?: number;
  /**
   * The model names the GenAI metrics may carry (`TelemetryConfig.models`): the configured ones (`CHATFLUX_MODEL`,
   * `CHATFLUX_ALLOWED_MODELS`, the routes and their targets' models). Each client adds its own model; any other name
   * a client or the upstream sends is recorded as `other`.
   */
  models?: readonly string[];
}

let contextManagerSet = false;
/** The longest the gateway's shutdown waits for the exporters' last flush, in ms (a healthy collector takes a few). */
const SHUTDOWN_FLUSH_MS = 500;
const CHAT_PATH = /^\/(chat\/(?:json|stream|sse|ui)|v1\/chat\/completions|v1\/messages)\/?$/i;

/**
 * The gateway's telemetry, on providers of its own (nothing registered globally but an `AsyncLocalStorage` context
 * manager, once per process, which makes a request's span the active one for its whole handling): a tracer provider
 * (OTLP when configured; else spans are made — trace ids for the logs and for `traceparent` upstream — and dropped),
 * a meter provider read by the Prometheus exporter (without its own server: `GET /metrics` is served by the gateway)
 * and by OTLP when configured, and the W3C trace-context propagator.
 *
 * @param config - OTLP switches and the service name.
 * @returns The telemetry.
 */
export function createGatewayTelemetry(config: GatewayTelemetryConfig): GatewayTelemetry {
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()); // false when one is set already: kept
    contextManagerSet = true;
  }
  // `service.instance.id` tells the processes apart (the workers of CHATFLUX_WORKERS, replicas): each exports
  // cumulative counters of its own, which a collector would take for one series were their resources the same.
  const instanceId = config.instanceId ?? `${hostname()}:${process.pid}`;
  const resource = resourceFromAttributes({
    'service.name': config.serviceName ?? process.env['OTEL_SERVICE_NAME'] ?? 'chatflux-gateway',
    'service.instance.id': config.worker === undefined ? instanceId : `${instanceId}/${config.worker}`,
  });
  const spanProcessors: SpanProcessor[] = config.otlp?.traces === true ? [new BatchSpanProcessor(new OTLPTraceExporter())] : [];
  // Without a trace exporter nothing reads a span's attributes: a request that does not continue a sampled trace gets
  // a non-recording span (its ids still name it in the logs and in the upstream's traceparent) instead of a recorded
  // one made to be dropped, with its attributes, for the SERVER span and the client's span alike.
  const sampler = spanProcessors.length > 0 ? new AlwaysOnSampler() : new ParentBasedSampler({ root: new AlwaysOffSampler() });
  const tracerProvider = new BasicTracerProvider({ resource, spanProcessors, sampler });
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: IMetricReader[] = [prometheus];
  if (config.otlp?.metrics === true) readers.push(new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() }));
  const meterProvider = new MeterProvider({ resource, readers });
  const propagator = new W3CTraceContextPropagator();
  const tracer: Tracer = tracerProvider.getTracer('chatflux-gateway');
  const meter = meterProvider.getMeter('chatflux-gateway');
  const requests = meter.createCounter('chatflux.gateway.requests', { unit: '{request}', description: 'Chat requests served, by endpoint, method, status and result.' });
  const inFlight = meter.createUpDownCounter('chatflux.gateway.streams.in_flight', { unit: '{request}', description: 'Chat requests (streams and JSON answers) being served now.' });
  const heartbeats = meter.createCounter('chatflux.gateway.heartbeats', { unit: '{heartbeat}', description: 'SSE heartbeat comments written.' });
  const poolInUse = meter.createObservableGauge('chatflux.upstream.connections.in_use', { unit: '{connection}', description: 'Upstream connections in use.' });
  const routeAttempts = meter.createCounter('chatflux.route.attempts', { unit: '{attempt}', description: "Routes' attempts, by route, target and outcome (completed, cut, failed, retried, skipped)." });
  const breakerTransitions = meter.createCounter('chatflux.route.breaker.transitions', { unit: '{transition}', description: "Routes' circuit breaker state changes, by route, target and the state entered." });
  const limitsFailures = meter.createCounter('chatflux.limits.store.failures', { unit: '{outage}', description: "Outages of the shared rate limits' store (Redis), by the failure policy applied meanwhile." });
  const limitsFailingGauge = meter.createObservableGauge('chatflux.limits.store.failing', { unit: '1', description: "1 while the shared rate limits' store (Redis) is unreachable and the failure policy applies." });
  let limitsFailing = 0;
  const tokensCharged = meter.createCounter('chatflux.limits.tokens.charged', { unit: '{token}', description: 'Weighted tokens charged to the token limits and budgets, estimated (a cancelled or cut answer) or not.' });
  const reservationsExpired = meter.createCounter('chatflux.limits.reservations.expired', { unit: '{reservation}', description: 'Token reservations of dead processes, charged at their estimate.' });
  limitsFailingGauge.addCallback((result) => result.observe(limitsFailing));
  // Under CHATFLUX_WORKERS a scrape is answered for every worker (the primary sums them): see clusterMetrics.ts.
  const cluster = config.worker === undefined ? undefined : joinClusterMetrics(async () => toPromClientMetrics((await prometheus.collect()).resourceMetrics, instanceId));
  const poolWaiting = meter.createObservableGauge('chatflux.upstream.connections.waiting', { unit: '{request}', description: 'Requests waiting for an upstream connection.' });

  return {
    client: { tracerProvider, meterProvider, propagator, models: config.models ?? [] },
    serveMetrics: (req, res) => {
      if (cluster === undefined) return prometheus.getMetricsRequestHandler(req, res);
      cluster.scrape().then(
        (text) => res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' }).end(text),
        (error: unknown) =>
          res
            .writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' })
            .end(JSON.stringify({ error: { message: `the workers' metrics cannot be gathered now (${(error as Error).message}); retry`, type: 'server_error', code: 'metrics_unavailable' } })),
      );
    },
    around: (req, res, next) => {
      const path = req.path ?? req.url ?? '/';
      const chat = CHAT_PATH.exec(path);
      if (chat === null) return next();
      const endpoint = `/${(chat[1] ?? '').toLowerCase()}`;
      const parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
      const span: Span = tracer.startSpan(
        `${req.method ?? 'POST'} ${endpoint}`,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? 'POST', 'http.route': endpoint, 'url.path': path } },
        parent,
      );
      inFlight.add(1, { 'http.route': endpoint });
      res.once('close', () => {
        inFlight.add(-1, { 'http.route': endpoint });
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      context.with(trace.setSpan(parent, span), next);
    },
    countHeartbeat: (endpoint) => heartbeats.add(1, { 'http.route': endpoint }),
    countRequest: (entry) => {
      requests.add(1, {
        'http.route': entry.endpoint,
        'http.request.method': entry.method,
        'http.response.status_code': entry.status,
        'chatflux.result': entry.result,
        ...(entry.error === undefined ? {} : { 'error.type': entry.error.kind }),
      });
    },
    observePool: (read) => {
      meter.addBatchObservableCallback(
        (result) => {
          const pool = read();
          if (pool === undefined) return;
          result.observe(poolInUse, pool.inUse);
          result.observe(poolWaiting, pool.waiting);
        },
        [poolInUse, poolWaiting],
      );
    },
    observeStreamLog: (read) => {
      const opened = meter.createObservableCounter('chatflux.streams.opened', { unit: '{stream}', description: 'Resumable answers opened.' });
      const degraded = meter.createObservableCounter('chatflux.streams.degraded', {
        unit: '{stream}',
        description: 'Resumable answers resumable on their own instance only: the shared log (Redis) was unreachable, its write queue full, or the answer past its cap.',
      });
      const errors = meter.createObservableCounter('chatflux.streamlog.errors', { unit: '{command}', description: "The shared stream log's commands that failed or timed out." });
      const lost = meter.createObservableCounter('chatflux.streams.producers_lost', { unit: '{stream}', description: 'Resumable answers ended as producer_lost by a reader (their instance died).' });
      meter.addBatchObservableCallback(
        (result) => {
          const stats = read();
          result.observe(opened, stats.opened);
          result.observe(degraded, stats.degraded);
          result.observe(errors, stats.errors);
          result.observe(lost, stats.producersLost);
        },
        [opened, degraded, errors, lost],
      );
    },
    countLimitsStoreEvent: (event) => {
      limitsFailing = event.state === 'failing' ? 1 : 0;
      if (event.state === 'failing') limitsFailures.add(1, { 'chatflux.limits.policy': event.policy });
    },
    countLimitsSettle: (event) => {
      tokensCharged.add(event.used, { 'chatflux.limits.estimated': event.estimated });
      if (event.expiredReservations > 0) reservationsExpired.add(event.expiredReservations);
    },
    countRouteEvent: (event) => {
      if (event.type === 'attempt') routeAttempts.add(1, { 'chatflux.route': event.route, 'chatflux.route.target': event.target, 'chatflux.route.outcome': event.outcome });
      else breakerTransitions.add(1, { 'chatflux.route': event.route, 'chatflux.route.target': event.target, 'chatflux.breaker.state': event.to });
    },
    traceIds: () => {
      const ids = trace.getSpan(context.active())?.spanContext();
      return ids === undefined ? undefined : { trace_id: ids.traceId, span_id: ids.spanId };
    },
    shutdown: async () => {
      cluster?.stop();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS).unref()));
      await Promise.race([Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]), deadline]);
      clearTimeout(timer);
    },
  };
}
