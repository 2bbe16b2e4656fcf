import type { ChatCompletionChunk } from '../../src/core/schemas/index';
import type { CompletionCall } from '../../src/telemetry/CompletionCall';

/** Two chunks named by their id, for marble specs of the telemetry operators (`a`, `b`). */
export const CHUNK_VALUES: Record<'a' | 'b', ChatCompletionChunk> = {
  a: { id: 'a', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] } as ChatCompletionChunk,
  b: { id: 'b', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] } as ChatCompletionChunk,
};

/** A `CompletionCall` that records what it is told, with the frame (`now()`) it was told at. */
export function recordingCall(now: () => number): CompletionCall & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    headers: () => ({}),
    attempt: () => void log.push(`${now()} attempt`),
    chunk: (c) => void log.push(`${now()} chunk ${c.id}`),
    attemptFailed: (error) => void log.push(`${now()} failed ${String(error)}`),
    end: (outcome) => void log.push(`${now()} end ${outcome === undefined ? 'ok' : String(outcome)}`),
  };
}
