/**
 * `/metrics` for a whole `CHATFLUX_WORKERS` gateway. OpenTelemetry's Prometheus exporter answers for its own process
 * only, and OpenTelemetry has no cluster aggregation (open-telemetry/opentelemetry-js#1252); prom-client has one,
 * `AggregatorRegistry`, whose sums the gateway's primary uses (it asks only the workers that said they are ready, not
 * one still starting, which `clusterMetrics()` would wait for until it fails the scrape):
 *
 * ```text
 * worker taking the scrape ──{chatfluxMetrics}──► primary: every ready worker, then AggregatorRegistry.aggregate()
 *                                                     ├─ prom-client:getMetricsReq ──► every ready worker: its OpenTelemetry
 *                                                     │    metrics (collect()) as prom-client's JSON, named as the
 *                                                     │    OpenTelemetry exporter names them
 *                                                     └─ sums them (a gauge that says "failing" takes the max)
 * worker ◄──{chatfluxMetricsReply: text}── primary
 * ```
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { DataPointType, type Histogram, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

/** A metric as prom-client's `getMetricsAsJSON()` gives it (what `AggregatorRegistry.aggregate` takes). */
export interface PromClientMetric {
  /** The Prometheus name. */
  name: string;
  /** Its help text. */
  help: string;
  /** Its Prometheus type. */
  type: 'counter' | 'gauge' | 'histogram';
  /** How the workers' values are combined. */
  aggregator: 'sum' | 'max' | 'first';
  /** Its samples. */
  values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>;
}

/** prom-client's own cluster messages (lib/cluster.js), which a worker answers itself with its OpenTelemetry metrics. */
const GET_METRICS_REQ = 'prom-client:getMetricsReq';
const GET_METRICS_RES = 'prom-client:getMetricsRes';
/** A worker's word to the primary that it answers `getMetricsReq` from now on (a worker still starting is not asked). */
const METRICS_READY = 'chatfluxMetricsReady';
/** How long the primary waits for a ready worker's metrics, ms (prom-client's `clusterMetrics` waits as long). */
const WORKER_METRICS_MS = 5000;
/** How long a worker waits for the primary's aggregate before `/metrics` fails (longer than the primary's own wait). */
const PRIMARY_METRICS_MS = 6000;
/** The gauges whose workers' values are combined by their maximum, not their sum (a 0/1 state). */
const MAX_GAUGES = new Set(['chatflux_limits_store_failing']);

const sanitize = (name: string): string => name.replace(/[^a-z0-9_]/gi, '_').replace(/_{2,}/g, '_');

/**
 * One process's OpenTelemetry metrics as prom-client metrics, named and labelled as OpenTelemetry's Prometheus
 * exporter writes them (`_total` on a monotonic sum, `otel_scope_name`, `target_info` from the resource), but with
 * `service.instance.id` set to `instanceId` in `target_info`: the aggregate is the instance's, not one worker's.
 *
 * @param metrics - What the process's reader collected.
 * @param instanceId - The instance's id.
 * @returns The metrics, ready for `AggregatorRegistry.aggregate`.
 */
export function toPromClientMetrics(metrics: ResourceMetrics, instanceId: string): PromClientMetric[] {
  const target: Record<string, string> = {};
  for (const [key, value] of Object.entries(metrics.resource.attributes)) target[sanitize(key)] = String(value);
  target['service_instance_id'] = instanceId;
  const out: PromClientMetric[] = [{ name: 'target_info', help: 'Target metadata', type: 'gauge', aggregator: 'first', values: [{ value: 1, labels: target }] }];
  for (const { scope, metrics: list } of metrics.scopeMetrics) {
    const scopeLabels: Record<string, string> = { otel_scope_name: scope.name, ...(scope.version ? { otel_scope_version: scope.version } : {}), ...(scope.schemaUrl ? { otel_scope_schema_url: scope.schemaUrl } : {}) };
    for (const metric of list) {
      const converted = convert(metric, scopeLabels);
      if (converted !== undefined) out.push(converted);
    }
  }
  return out;
}

function convert(metric: MetricData, scopeLabels: Record<string, string>): PromClientMetric | undefined {
  let name = sanitize(metric.descriptor.name);
  if (/^[0-9]/.test(name)) name = `_${name}`;
  const help = metric.descriptor.description || 'description missing';
  const labelsOf = (attributes: Record<string, unknown>): Record<string, string | number> => {
    const labels: Record<string, string | number> = {};
    for (const [key, value] of Object.entries(attributes)) labels[sanitize(key)] = typeof value === 'number' ? value : String(value);
    return { ...labels, ...scopeLabels };
  };
  if (metric.dataPointType === DataPointType.SUM || metric.dataPointType === DataPointType.GAUGE) {
    const counter = metric.dataPointType === DataPointType.SUM && metric.isMonotonic;
    if (counter && !name.endsWith('_total')) name = `${name}_total`;
    return {
      name,
      help,
      type: counter ? 'counter' : 'gauge',
      aggregator: MAX_GAUGES.has(name) ? 'max' : 'sum',
      values: metric.dataPoints.map((point) => ({ value: point.value, labels: labelsOf(point.attributes) })),
    };
  }
  if (metric.dataPointType === DataPointType.HISTOGRAM) {
    const values: PromClientMetric['values'] = [];
    for (const point of metric.dataPoints) {
      const labels = labelsOf(point.attributes);
      const histogram: Histogram = point.value;
      values.push({ value: histogram.count, labels, metricName: `${name}_count` });
      if (histogram.sum !== undefined) values.push({ value: histogram.sum, labels, metricName: `${name}_sum` });
      let cumulative = 0;
      histogram.buckets.counts.forEach((count, i) => {
        cumulative += count;
        const bound = histogram.buckets.boundaries[i];
        values.push({ value: cumulative, labels: { ...labels, le: bound === undefined || bound === Infinity ? '+Inf' : String(bound) }, metricName: `${name}_bucket` });
      });
    }
    return { name, help, type: 'histogram', aggregator: 'sum', values };
  }
  return undefined; // exponential histograms: the gateway makes none
}

/**
 * A worker's side: answers the primary's `AggregatorRegistry` (prom-client's `getMetricsReq`) with this process's
 * metrics, and asks the primary for the whole gateway's when it takes a scrape.
 *
 * @param collect - This process's metrics, as prom-client metrics.
 * @returns `scrape()`: the whole gateway's metrics in Prometheus' text format (rejects when the primary does not
 *   answer within 6 s), and `stop()`.
 */
export function joinClusterMetrics(collect: () => Promise<PromClientMetric[]>): { scrape(): Promise<string>; stop(): void } {
  let next = 0;
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  const onMessage = (message: unknown): void => {
    const request = message as { type?: unknown; requestId?: unknown; chatfluxMetricsReply?: { id: number; text?: string; error?: string } } | null;
    if (request?.type === GET_METRICS_REQ) {
      collect().then(
        (metrics) => process.send?.({ type: GET_METRICS_RES, requestId: request.requestId, metrics: [metrics] }),
        (error: unknown) => process.send?.({ type: GET_METRICS_RES, requestId: request.requestId, error: error instanceof Error ? error.message : String(error) }),
      );
      return;
    }
    const reply = request?.chatfluxMetricsReply;
    const waiting = reply === undefined ? undefined : pending.get(reply.id);
    if (reply === undefined || waiting === undefined) return;
    pending.delete(reply.id);
    clearTimeout(waiting.timer);
    if (reply.text !== undefined) waiting.resolve(reply.text);
    else waiting.reject(new Error(reply.error ?? 'no metrics'));
  };
  process.on('message', onMessage);
  process.send?.({ [METRICS_READY]: true });
  return {
    scrape: () =>
      new Promise<string>((resolve, reject) => {
        const id = next++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`the primary did not answer within ${PRIMARY_METRICS_MS} ms`));
        }, PRIMARY_METRICS_MS).unref();
        pending.set(id, { resolve, reject, timer });
        if (process.send?.({ chatfluxMetrics: id }) === undefined) {
          pending.delete(id);
          clearTimeout(timer);
          reject(new Error('not a cluster worker'));
        }
      }),
    stop: () => void process.off('message', onMessage),
  };
}

/**
 * The primary's side: a worker's `{chatfluxMetrics}` asks every worker that is ready (it said so once it could
 * answer: a worker being started or replaced has nothing counted yet, and is not waited for; one that exits meanwhile
 * is not waited for either) for its metrics (prom-client's `getMetricsReq`, answered by `joinClusterMetrics`), sums
 * them with prom-client's `AggregatorRegistry.aggregate`, and sends them back as Prometheus text.
 *
 * @returns Stops answering.
 */
export function serveClusterMetrics(): () => void {
  const ready = new Set<Worker>();
  let next = 0;
  const gathering = new Map<number, { responses: PromClientMetric[][]; waiting: Set<Worker>; finish: (error?: Error) => void }>();
  const gather = (): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const requestId = next++;
      const workers = [...ready].filter((worker) => worker.isConnected());
      const responses: PromClientMetric[][] = [];
      const timer = setTimeout(() => finish(new Error(`a worker did not send its metrics within ${WORKER_METRICS_MS} ms`)), WORKER_METRICS_MS).unref();
      const finish = (error?: Error): void => {
        if (!gathering.delete(requestId)) return;
        clearTimeout(timer);
        if (error !== undefined) return reject(error);
        AggregatorRegistry.aggregate(responses as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics().then(resolve, reject);
      };
      gathering.set(requestId, { responses, waiting: new Set(workers), finish });
      if (workers.length === 0) return finish();
      for (const worker of workers) worker.send({ type: GET_METRICS_REQ, requestId });
    });
  const onMessage = (worker: Worker, message: unknown): void => {
    const body = message as { chatfluxMetrics?: unknown; type?: unknown; requestId?: unknown; metrics?: PromClientMetric[][]; error?: string; [METRICS_READY]?: unknown } | null;
    if (body?.[METRICS_READY] === true) return void ready.add(worker);
    if (body?.type === GET_METRICS_RES && typeof body.requestId === 'number') {
      const request = gathering.get(body.requestId);
      if (request === undefined || !request.waiting.delete(worker)) return; // late, or not asked
      if (body.error !== undefined) return request.finish(new Error(body.error));
      request.responses.push(...(body.metrics ?? []));
      if (request.waiting.size === 0) request.finish();
      return;
    }
    const id = body?.chatfluxMetrics;
    if (typeof id !== 'number') return;
    gather().then(
      (text) => worker.isConnected() && worker.send({ chatfluxMetricsReply: { id, text } }),
      (error: unknown) => worker.isConnected() && worker.send({ chatfluxMetricsReply: { id, error: error instanceof Error ? error.message : String(error) } }),
    );
  };
  const onExit = (worker: Worker): void => {
    ready.delete(worker);
    for (const request of gathering.values()) if (request.waiting.delete(worker) && request.waiting.size === 0) request.finish();
  };
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  return () => {
    cluster.off('message', onMessage);
    cluster.off('exit', onExit);
  };
}
