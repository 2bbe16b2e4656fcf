/**
 * `npm run bench:telemetry` — what tracing costs on workload (a) (100 000 text deltas, one event per network chunk):
 * the pipeline `parseSse → decodeChunk → accumulateDeltas` as it is, with `traceCompletion` and no registered
 * provider (the API's no-op: the figure for everyone who does not turn telemetry on), and with `traceCompletion` on
 * the OpenTelemetry SDK (a span, the four GenAI histograms, a time-per-chunk sample per chunk). The three run
 * interleaved in one process, so a noisy machine slows them alike: the report is the same-run ratio of medians.
 * `--quick`: 5 000 deltas, 3 runs (a smoke test). Writes bench/TELEMETRY.md.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { from, lastValueFrom, type MonoTypeOperatorFunction } from 'rxjs';
import { accumulateDeltas } from '../src/operators/accumulateDeltas.js';
import { decodeChunk } from '../src/operators/decodeChunk.js';
import { parseSse } from '../src/operators/parseSse.js';
import type { ChatCompletionChunk } from '../src/core/schemas/index.js';
import { traceCompletion } from '../src/telemetry/traceCompletion.js';
import { median } from './lib/median.js';
import { buildWorkload, workloadSpecs } from './workloads.js';

const quick = process.argv.includes('--quick');
const spec = workloadSpecs(quick).find((s) => s.name === 'a')!;
const workload = buildWorkload(spec);
const completion = { providerName: 'deepseek', model: 'deepseek-chat', baseUrl: 'https://api.deepseek.com' };

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider({
  readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })],
});

const MODES: Record<string, () => MonoTypeOperatorFunction<ChatCompletionChunk>> = {
  'no traceCompletion': () => (source) => source,
  'traceCompletion, no provider': () => traceCompletion({ completion }),
  'traceCompletion, SDK provider': () => traceCompletion({ completion, tracerProvider, meterProvider }),
};

async function once(operator: MonoTypeOperatorFunction<ChatCompletionChunk>): Promise<number> {
  const started = performance.now();
  const snapshot = await lastValueFrom(from(workload.chunks).pipe(parseSse(), decodeChunk(), operator, accumulateDeltas()));
  const ms = performance.now() - started;
  if (snapshot.choices[0]?.message.content !== workload.expected.text) throw new Error('bench: wrong answer');
  return ms;
}

async function main(): Promise<void> {
  const warmup = quick ? 1 : 2;
  const reps = quick ? 3 : 21;
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(MODES).map((mode) => [mode, []]));
  for (let rep = 0; rep < warmup + reps; rep++) {
    const order = Object.keys(MODES);
    if (rep % 2 === 1) order.reverse(); // neither mode always runs first
    for (const mode of order) {
      const ms = await once(MODES[mode]!());
      if (rep >= warmup) times[mode]!.push(ms);
    }
  }
  const base = median(times['no traceCompletion']!);
  const baseMin = Math.min(...times['no traceCompletion']!);
  const rows = Object.entries(times).map(([mode, values]) => {
    const m = median(values);
    const fastest = Math.min(...values);
    return `| ${mode} | ${m.toFixed(1)} | ${(m / base).toFixed(3)} | ${fastest.toFixed(1)} | ${(fastest / baseMin).toFixed(3)} |`;
  });
  const lines = [
    '# Telemetry overhead (workload (a))',
    '',
    `Workload (a): ${workload.events} events, ${(workload.bytes / 1e6).toFixed(1)} MB, \`parseSse → decodeChunk → [traceCompletion] → accumulateDeltas\`,`,
    `median and fastest of ${reps} interleaved runs each (after ${warmup} warm-up), Node ${process.version}, one process; the ratio is to the`,
    'pipeline without `traceCompletion` in the same run (the machine is shared: absolute times vary, the ratio much less).',
    '',
    '| pipeline | median ms | ratio of medians | fastest ms | ratio of fastest |',
    '|---|---:|---:|---:|---:|',
    ...rows,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!quick) writeFileSync(join(__dirname, 'TELEMETRY.md'), `${lines.join('\n')}`);
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
}

void main();
