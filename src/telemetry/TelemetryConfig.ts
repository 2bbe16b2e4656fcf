import type { MeterProvider, TextMapPropagator, TracerProvider } from '@opentelemetry/api';

/**
 * Where chatflux's OpenTelemetry spans and metrics go. Everything is optional: by default the providers registered
 * globally with `@opentelemetry/api` are used, and without one (or without the API installed) nothing is recorded and
 * nothing is paid per chunk.
 */
export interface TelemetryConfig {
  /** `false` turns telemetry off for this client even when a global provider is registered (default `true`). */
  enabled?: boolean;
  /** The tracer provider (default: the global one, `trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** The meter provider (default: the global one, `metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /** How the span is carried to the upstream request's headers (default: the global propagator, `propagation`). */
  propagator?: TextMapPropagator;
  /**
   * Record the messages sent and the answer's text on the span (`gen_ai.input.messages`, `gen_ai.output.messages`).
   * Default `false`: prompts and answers often hold personal data, so they are recorded only when asked for.
   */
  captureContent?: boolean;
  /** `gen_ai.provider.name` (default: the client's preset, as the conventions name it: `deepseek`, `moonshot_ai`, `openai`, …). */
  providerName?: string;
  /**
   * The model names the metrics may carry (`gen_ai.request.model`, `gen_ai.response.model`): a list, or a predicate.
   * Any other name — a client's typo, a provider's dated `gpt-4o-2024-08-06` — is recorded as `other`, so that no
   * request and no upstream can add series to your metrics backend without bound. Spans keep the real name (redacted
   * and at most 256 characters): a span is one record, not a series.
   *
   * A chat client's own `model` (the one it was created with, or its preset's) is always known; by default it is the
   * only one. `traceCompletion` knows only these: its `completion` describes one request, whose model a caller may
   * have chosen. `models: () => true` records every name: only for names you bound yourself.
   *
   * ## Example
   * ```ts
   * createChatClient({ provider: 'deepseek', telemetry: { models: ['deepseek-chat', 'deepseek-reasoner'] } });
   * ```
   */
  models?: readonly string[] | ((model: string) => boolean);
  /**
   * Literal secrets to remove from span attributes (a provider may echo the key it was sent in a response's `id` or
   * `model`); things shaped like keys (`sk-…`, `Bearer …`) are always removed. `createChatClient` adds its API key.
   */
  secrets?: readonly string[];
}
