import type { OperatorFunction } from 'rxjs';
import type { LlmClientOutput } from '../core/schemas/contract.js';
import type { ToolLoopEvent } from './ToolLoopEvent.js';
import { finishOf } from './finishOf.js';

/**
 * The tool loop's final answer: the `output` of its `finish` event, in the `/chat/json` shape — a Mono, for
 * `sendJson`, `toResponse(…, JSON_WIRE)` or `lastValueFrom`.
 *
 * ```text
 * source:  --S--t--t--T--F--S--t--(E|)
 * toToolLoopOutput()
 * result:  -----------------------(o|)     o = E.output
 * ```
 *
 * 1. Emits once, at the source's completion, the `finish` event's `output`: the last step's message, its
 *    `finish_reason`, and `usage` summed over every step.
 * 2. Events that end without `finish` → `StreamProtocolError('stream_incomplete')`; a source error passes through.
 *
 * ## Example
 * ```ts
 * const answer = await lastValueFrom(runTools(client, request, { tools }).pipe(toToolLoopOutput()));
 * ```
 *
 * @returns An operator from {@link ToolLoopEvent}s to one `LlmClientOutput`.
 */
export function toToolLoopOutput(): OperatorFunction<ToolLoopEvent, LlmClientOutput> {
  return finishOf('toToolLoopOutput', (finish) => finish.output);
}
