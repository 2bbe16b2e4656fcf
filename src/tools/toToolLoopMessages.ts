import type { OperatorFunction } from 'rxjs';
import type { ChatMessage } from '../core/schemas/contract.js';
import type { ToolLoopEvent } from './ToolLoopEvent.js';
import { finishOf } from './finishOf.js';

/**
 * The tool loop's conversation: the request's messages, then every step's assistant turn (its `tool_calls` and
 * `reasoning_content`) and `tool` messages, and the final answer's turn — the `messages` to send next time.
 *
 * ```text
 * source:  --S--t--T--F--S--t--(E|)
 * toToolLoopMessages()
 * result:  --------------------(m|)     m = E.messages
 * ```
 *
 * Emits once, at the source's completion; events that end without `finish` → `StreamProtocolError('stream_incomplete')`.
 *
 * ## Example
 * ```ts
 * const messages = await lastValueFrom(runTools(client, request, { tools }).pipe(toToolLoopMessages()));
 * messages.push({ role: 'user', content: 'And tomorrow?' }); // the next turn goes on from there
 * ```
 *
 * @returns An operator from {@link ToolLoopEvent}s to the conversation.
 */
export function toToolLoopMessages(): OperatorFunction<ToolLoopEvent, readonly ChatMessage[]> {
  return finishOf('toToolLoopMessages', (finish) => finish.messages);
}
