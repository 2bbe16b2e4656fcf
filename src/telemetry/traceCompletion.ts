import type { MonoTypeOperatorFunction } from 'rxjs';
import type { ChatCompletionChunk } from '../core/schemas/index.js';
import type { CompletionDescription } from './CompletionDescription.js';
import { createCompletionTelemetry } from './createCompletionTelemetry.js';
import type { TelemetryConfig } from './TelemetryConfig.js';
import { traceCall } from './traceCall.js';
import { watchAttempt } from './watchAttempt.js';

/** Options of {@link traceCompletion}: where the telemetry goes, and what the request was. */
export interface TraceCompletionConfig extends TelemetryConfig {
  /** The request the chunks answer (model, parameters, provider, base URL). */
  completion: CompletionDescription;
}

/**
 * Traces a stream of upstream chunks as one GenAI completion (OpenTelemetry semantic conventions): one CLIENT span
 * `chat {model}` per subscription with the request's and the response's attributes, usage from the final chunk, time
 * to first chunk, `error.type` on failure or cancellation; and the `gen_ai.client.*` histograms.
 * `createChatClient` applies it for you (around its retries, so a retry is a span event); use it on chunks you get
 * elsewhere. Without `@opentelemetry/api` or a registered provider it passes the chunks through untouched.
 *
 * The metrics name only the models of `config.models`: any other request or response model is recorded as `other`
 * (`completion` describes one request, often with a model its client chose, so its `model` is not trusted), and
 * `error.type` is one of chatflux's error codes or `_OTHER` — so that requests and upstreams cannot grow your metrics
 * backend without bound. The span keeps the real names (secrets redacted, at most 256 characters).
 *
 * ```text
 * source:           ----a--b--c|
 * traceCompletion({ completion: { providerName: 'deepseek', model: 'deepseek-chat' } })
 * result:           ----a--b--c|
 * span:             [--------------]  chat deepseek-chat, time_to_first_chunk = 4 frames, usage of c
 * ```
 *
 * @param config - The providers (default: the global ones) and the request's description.
 * @returns The chunks, unchanged, traced.
 */
export function traceCompletion(config: TraceCompletionConfig): MonoTypeOperatorFunction<ChatCompletionChunk> {
  const telemetry = createCompletionTelemetry(config);
  return (source) => traceCall(telemetry, () => config.completion, (call) => source.pipe(watchAttempt(call)));
}
