import type { ChatCompletionChunk } from '../core/schemas/index.js';

/**
 * One traced completion, from its first attempt to its end: the span and the metrics being recorded. Made by
 * `CompletionTelemetry.start`; `traceCall` and `watchAttempt` drive it.
 */
export interface CompletionCall {
  /** The headers that carry the span to the upstream (W3C `traceparent`, `tracestate`), per the registered propagator. */
  headers(): Record<string, string>;
  /** An attempt starts (the second and later ones add a `gen_ai.client.retry` event to the span). */
  attempt(): void;
  /** A chunk arrived (time to first chunk, time per chunk, response id and model, finish reasons, usage). */
  chunk(chunk: ChatCompletionChunk): void;
  /** An attempt failed (a timeout adds a `gen_ai.client.timeout` event; the call may still retry). */
  attemptFailed(error: unknown): void;
  /** The call ended: completed (`undefined`), failed (its error), or cancelled (`'aborted'`). Idempotent. */
  end(outcome: unknown): void;
}
