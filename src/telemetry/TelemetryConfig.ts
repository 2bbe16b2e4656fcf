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
}
