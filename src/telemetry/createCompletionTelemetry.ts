import type { Attributes, Counter, Histogram, Meter, MeterProvider, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import type { ChatCompletionChunk } from '../core/schemas/index.js';
import type { CompletionCall } from './CompletionCall.js';
import type { CompletionDescription } from './CompletionDescription.js';
import type { CompletionTelemetry } from './CompletionTelemetry.js';
import { redactSecrets } from '../core/redactSecrets.js';
import { truncate } from '../core/truncate.js';
import { errorType } from './errorType.js';
import { GEN_AI_METRICS, type GenAiHistogram } from './GEN_AI_METRICS.js';
import { knownModels } from './knownModels.js';
import { loadOtelApi, type OtelApi } from './loadOtelApi.js';
import type { TelemetryConfig } from './TelemetryConfig.js';

/** The instrumentation scope of chatflux's spans and metrics. */
const SCOPE = 'chatflux';
const SPAN_KIND_CLIENT = 2; // SpanKind.CLIENT
const STATUS_ERROR = 2; // SpanStatusCode.ERROR
/** What metrics record for a model outside `TelemetryConfig.models`. */
const OTHER_MODEL = 'other';
/** The longest string a span attribute takes from a request or an upstream (an id, a model name, a message). */
const MAX_SPAN_STRING = 256;

interface Instruments {
  provider: MeterProvider;
  live: boolean;
  duration: Histogram;
  tokens: Histogram;
  firstChunk: Histogram;
  perChunk: Histogram;
  retries: Counter;
}

const histogram = (meter: Meter, spec: GenAiHistogram): Histogram =>
  meter.createHistogram(spec.name, {
    unit: spec.unit,
    description: spec.description,
    advice: { explicitBucketBoundaries: [...spec.boundaries] },
  });

const REQUEST_ATTRIBUTES: ReadonlyArray<readonly [string, string]> = [
  ['temperature', 'gen_ai.request.temperature'],
  ['top_p', 'gen_ai.request.top_p'],
  ['seed', 'gen_ai.request.seed'],
  ['frequency_penalty', 'gen_ai.request.frequency_penalty'],
  ['presence_penalty', 'gen_ai.request.presence_penalty'],
];

/** `server.address` / `server.port` of a base URL (the scheme's default port when it names none). */
function serverOf(baseUrl: string | undefined): Attributes {
  if (baseUrl === undefined) return {};
  try {
    const url = new URL(baseUrl);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return { 'server.address': url.hostname.replace(/^\[|\]$/g, ''), 'server.port': port };
  } catch {
    return {};
  }
}

/** The span's attributes from the request, before anything is sent. */
function requestAttributes(description: CompletionDescription, base: Attributes): Attributes {
  const attributes: Attributes = { ...base, 'gen_ai.request.stream': description.stream ?? true };
  const body = description.request ?? {};
  for (const [field, key] of REQUEST_ATTRIBUTES) {
    const value = body[field];
    if (typeof value === 'number') attributes[key] = value;
  }
  const maxTokens = body['max_tokens'] ?? body['max_completion_tokens'];
  if (typeof maxTokens === 'number') attributes['gen_ai.request.max_tokens'] = maxTokens;
  if (typeof body['n'] === 'number') attributes['gen_ai.request.choice.count'] = body['n'];
  return attributes;
}

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** How the attributes of a call are bounded: model names for metrics, and strings for spans. */
interface Bounds {
  /** The metric label of a model name: the name when known, else `other`. */
  label(model: string): string;
  /** A string from a request or an upstream, fit for a span: secrets redacted, then at most 256 characters. */
  clean(text: string): string;
}

/**
 * Creates a client's {@link CompletionTelemetry}: one CLIENT span per completion named `chat {model}` and the four
 * GenAI histograms (`GEN_AI_METRICS`), per the OpenTelemetry semantic conventions for generative AI.
 *
 * Every metric attribute comes from a bounded set, whatever the requests and the upstream send: the model names of
 * `config.models` (else `other`; by default none is known, and `createChatClient` adds its own model), `error.type` from chatflux's own error codes (else `_OTHER`), the provider and the server from
 * the configuration. Span attributes keep the real names, with secrets (`config.secrets`, key shapes) redacted and
 * at most 256 characters.
 *
 * The providers are looked up at each call (the config's, else the global ones), so a provider registered after the
 * client was made is used. When `@opentelemetry/api` is not installed, `enabled` is `false`, or no provider is
 * registered (the span would not record and the meter is the no-op one), `start` returns `undefined` and the caller
 * pays nothing per chunk.
 *
 * @param config - The providers, content capture and provider name.
 * @returns The telemetry, or `undefined` when the API is not installed or telemetry is off.
 */
export function createCompletionTelemetry(config: TelemetryConfig = {}): CompletionTelemetry | undefined {
  if (config.enabled === false) return undefined;
  const api = loadOtelApi();
  if (api === undefined) return undefined;
  const known = knownModels(config.models);
  const secrets = config.secrets ?? [];
  const bounds: Bounds = {
    label: (model) => (known(model) ? model : OTHER_MODEL),
    clean: (text) => truncate(redactSecrets(text, secrets), MAX_SPAN_STRING),
  };
  const noopMeter = api.createNoopMeter().constructor;
  let instruments: Instruments | undefined;
  const instrumentsNow = (): Instruments => {
    const provider = config.meterProvider ?? api.metrics.getMeterProvider();
    if (instruments?.provider !== provider) {
      const meter = provider.getMeter(SCOPE);
      instruments = {
        provider,
        live: !(meter instanceof noopMeter),
        duration: histogram(meter, GEN_AI_METRICS.duration),
        tokens: histogram(meter, GEN_AI_METRICS.tokenUsage),
        firstChunk: histogram(meter, GEN_AI_METRICS.timeToFirstChunk),
        perChunk: histogram(meter, GEN_AI_METRICS.timePerOutputChunk),
        retries: meter.createCounter('chatflux.client.retries', { unit: '{retry}', description: 'Attempts of a completion after its first (retryOnTransient).' }),
      };
    }
    return instruments;
  };
  // What is the same from call to call is made once, not per call: the tracer (while the provider is the same), the
  // base attributes (while the provider name and the base URL are: a client calls one, a route a few) and the model's
  // attributes (while the model is). One entry each, replaced when the input changes: nothing grows with the requests.
  let tracerOf: { provider: TracerProvider; tracer: Tracer } | undefined;
  let baseOf: { providerName: string; baseUrl: string | undefined; base: Attributes } | undefined;
  let modelOf: { base: Attributes; model: string; span: Attributes; metric: Attributes; name: string } | undefined;
  return {
    start: (description) => {
      const provider = config.tracerProvider ?? api.trace.getTracerProvider();
      if (tracerOf?.provider !== provider) tracerOf = { provider, tracer: provider.getTracer(SCOPE) };
      const metrics = instrumentsNow();
      const providerName = config.providerName ?? description.providerName;
      if (baseOf?.providerName !== providerName || baseOf.baseUrl !== description.baseUrl) {
        const base = Object.freeze({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': providerName, ...serverOf(description.baseUrl) });
        baseOf = { providerName, baseUrl: description.baseUrl, base };
      }
      const { base } = baseOf;
      if (description.model !== undefined && (modelOf?.model !== description.model || modelOf.base !== base)) {
        const cleaned = bounds.clean(description.model);
        modelOf = {
          base,
          model: description.model,
          span: Object.freeze({ ...base, 'gen_ai.request.model': cleaned }),
          metric: Object.freeze({ ...base, 'gen_ai.request.model': bounds.label(description.model) }),
          name: `chat ${cleaned}`.trimEnd(),
        };
      }
      const model = description.model === undefined ? undefined : modelOf;
      const span = tracerOf.tracer.startSpan(model?.name ?? 'chat', {
        kind: SPAN_KIND_CLIENT,
        attributes: requestAttributes(description, model?.span ?? base),
      });
      if (!span.isRecording() && !metrics.live) {
        span.end();
        return undefined;
      }
      return startCall(api, span, metrics, model?.metric ?? base, bounds, description, config);
    },
  };
}

/** The call's state machine: one per completion, ended once. */
function startCall(
  api: OtelApi,
  span: Span,
  metrics: Instruments,
  base: Attributes,
  bounds: Bounds,
  description: CompletionDescription,
  config: TelemetryConfig,
): CompletionCall {
  const captureContent = config.captureContent === true;
  const started = performance.now();
  const recording = span.isRecording();
  let attempts = 0;
  let firstAt: number | undefined;
  let lastAt = 0;
  let responseId: string | undefined;
  let responseModel: string | undefined;
  let usage: ChatCompletionChunk['usage'];
  let ended = false;
  let inBurst = false;
  /** The burst's time (to the first chunk, or since the previous burst) and its histogram, recorded at its end. */
  let burstSeconds = 0;
  let burstHistogram: Histogram | undefined;
  const endBurst = (): void => {
    inBurst = false;
    lastAt = performance.now();
    burstHistogram?.record(burstSeconds, base);
    burstHistogram = undefined;
  };
  const finishReasons: string[] = [];
  const texts: string[] = [];
  if (captureContent && recording && description.request?.['messages'] !== undefined) {
    span.setAttribute('gen_ai.input.messages', JSON.stringify(description.request['messages']));
  }
  const metricAttributes = (): Attributes =>
    responseModel === undefined ? base : { ...base, 'gen_ai.response.model': bounds.label(responseModel) };

  return {
    headers: () => {
      const carrier: Record<string, string> = {};
      const context = api.trace.setSpan(api.context.active(), span);
      if (config.propagator === undefined) api.propagation.inject(context, carrier);
      else config.propagator.inject(context, carrier, api.defaultTextMapSetter);
      return carrier;
    },
    attempt: () => {
      attempts += 1;
      if (attempts === 1) return;
      metrics.retries.add(1, base);
      if (recording) span.addEvent('gen_ai.client.retry', { 'chatflux.attempt': attempts });
    },
    chunk: (chunk) => {
      // The chunks of one network read arrive in one synchronous burst: the clock is read, and a time per chunk
      // recorded, once per burst (the SDK hashes a record's attributes, a few µs: not per chunk of a burst, whose
      // gaps of a few µs say nothing about the stream's pace). The burst ends at the next microtask.
      if (!inBurst) {
        const now = performance.now();
        // Measured now, recorded (the SDK hashes the attributes) at the burst's end: after the writer has sent the
        // first chunk on, not on the way to the client's first byte.
        if (firstAt === undefined) {
          firstAt = now;
          burstHistogram = metrics.firstChunk;
          burstSeconds = (now - started) / 1000;
        } else {
          burstHistogram = metrics.perChunk;
          burstSeconds = (now - lastAt) / 1000;
        }
        inBurst = true;
        queueMicrotask(endBurst);
      }
      if (responseId === undefined && typeof chunk.id === 'string' && chunk.id !== '') responseId = chunk.id;
      if (responseModel === undefined && typeof chunk.model === 'string' && chunk.model !== '') responseModel = chunk.model;
      // decodeChunk has put the usage at the top level already; Groq's and Moonshot's places are read only for chunks
      // traceCompletion gets undecoded (decodeChunk's rule: top level, else x_groq, else the first choice's).
      let found = chunk.usage ?? chunk.x_groq?.usage;
      for (const choice of chunk.choices ?? []) {
        const index = choice.index ?? 0;
        if (choice.finish_reason) finishReasons[index] = choice.finish_reason;
        found ??= choice.usage;
        if (captureContent && typeof choice.delta?.content === 'string') texts[index] = (texts[index] ?? '') + choice.delta.content;
      }
      if (found) usage = found;
    },
    attemptFailed: (error) => {
      if (!recording) return;
      const type = errorType(error);
      if (type === 'timeout') {
        const phase = (error as { phase?: unknown }).phase;
        span.addEvent('gen_ai.client.timeout', { 'error.type': type, ...(typeof phase === 'string' ? { 'chatflux.timeout.phase': phase } : {}) });
      }
    },
    end: (outcome) => {
      if (ended) return;
      ended = true;
      const failed = outcome !== undefined;
      const type = failed ? (outcome === 'aborted' ? 'aborted' : errorType(outcome)) : undefined;
      const attributes = metricAttributes();
      metrics.duration.record((performance.now() - started) / 1000, type === undefined ? attributes : { ...attributes, 'error.type': type });
      const input = count(usage?.prompt_tokens);
      const output = count(usage?.completion_tokens);
      if (input !== undefined) metrics.tokens.record(input, { ...attributes, 'gen_ai.token.type': 'input' });
      if (output !== undefined) metrics.tokens.record(output, { ...attributes, 'gen_ai.token.type': 'output' });
      if (recording) {
        const done: Attributes = {};
        if (responseId !== undefined) done['gen_ai.response.id'] = bounds.clean(responseId);
        if (responseModel !== undefined) done['gen_ai.response.model'] = bounds.clean(responseModel);
        const reasons = finishReasons.filter((reason) => reason !== undefined);
        if (reasons.length > 0) done['gen_ai.response.finish_reasons'] = reasons;
        if (firstAt !== undefined) done['gen_ai.response.time_to_first_chunk'] = (firstAt - started) / 1000;
        if (input !== undefined) done['gen_ai.usage.input_tokens'] = input;
        if (output !== undefined) done['gen_ai.usage.output_tokens'] = output;
        const reasoning = count(usage?.completion_tokens_details?.reasoning_tokens);
        if (reasoning !== undefined) done['gen_ai.usage.reasoning.output_tokens'] = reasoning;
        const cached = count(usage?.prompt_cache_hit_tokens) ?? count(usage?.cached_tokens) ?? count(usage?.prompt_tokens_details?.cached_tokens);
        if (cached !== undefined) done['gen_ai.usage.cache_read.input_tokens'] = cached;
        if (captureContent) {
          done['gen_ai.output.messages'] = JSON.stringify(
            texts.map((content, index) => ({ role: 'assistant', parts: [{ type: 'text', content }], finish_reason: finishReasons[index] ?? null })),
          );
        }
        span.setAttributes(done);
        if (type !== undefined) {
          span.setAttribute('error.type', type);
          const status = (outcome as { status?: unknown } | undefined)?.status;
          if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
          const message = outcome instanceof Error ? bounds.clean(String(outcome.message)) : 'the completion was cancelled';
          span.setStatus({ code: STATUS_ERROR, message });
        }
      }
      span.end();
    },
  };
}
