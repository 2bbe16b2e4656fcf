import type { LlmClientOutputChunk } from '../core/schemas/index.js';
import { serverSentEvent } from '../core/serverSentEvent.js';
import type { ServerSentEvent } from '../core/types.js';

/**
 * How a restart chunk (`restartChunk`) goes on an SSE wire: `event: restart` with the chunk as its data — the one
 * place that says so, for a route's `sse()` and the serving core's SSE wires alike.
 *
 * @param chunk - A chunk of a route's `stream()`.
 * @returns Its `event: restart` frame, or `undefined` when it is not a restart chunk (it goes as a plain `data:` frame).
 */
export function restartEvent(chunk: LlmClientOutputChunk): ServerSentEvent<LlmClientOutputChunk> | undefined {
  return chunk.restart === undefined ? undefined : serverSentEvent({ event: 'restart', data: chunk });
}
