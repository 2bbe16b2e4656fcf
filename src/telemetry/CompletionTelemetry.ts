import type { CompletionCall } from './CompletionCall.js';
import type { CompletionDescription } from './CompletionDescription.js';

/** A client's telemetry: starts one {@link CompletionCall} per completion. */
export interface CompletionTelemetry {
  /** Starts a call's span and clock; `undefined` when nothing would be recorded (no provider): then nothing is paid. */
  start(description: CompletionDescription): CompletionCall | undefined;
}
