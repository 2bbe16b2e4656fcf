import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** One histogram's data points, by metric name, after a flush. */
export type HistogramPoints = DataPoint<Histogram>[];

/** A tracer and a meter provider that keep what they record in memory (no globals registered). */
export interface InMemoryTelemetry {
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  /** The spans ended so far. */
  spans(): ReadableSpan[];
  /** The data points of the histogram `name` (cumulative), after a flush. */
  histogram(name: string): Promise<HistogramPoints>;
  shutdown(): Promise<void>;
}

/** In-memory exporters (`InMemorySpanExporter`, `InMemoryMetricExporter`) behind a pair of providers. */
export function inMemoryTelemetry(): InMemoryTelemetry {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => spanExporter.getFinishedSpans(),
    histogram: async (name) => {
      await reader.forceFlush();
      const points: HistogramPoints = [];
      const latest = metricExporter.getMetrics().at(-1);
      for (const scope of latest?.scopeMetrics ?? []) {
        for (const metric of scope.metrics) if (metric.descriptor.name === name) points.push(...(metric.dataPoints as HistogramPoints));
      }
      return points;
    },
    shutdown: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
