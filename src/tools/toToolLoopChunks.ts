import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import type { LlmClientOutputChunk, OutputMessage } from '../core/schemas/contract.js';
import type { ToolLoopEvent } from './ToolLoopEvent.js';

/**
 * The tool loop's events as the contract's chunks — the lines of `/chat/stream` and the data of `/chat/sse` — so that
 * a service of your own that runs tools serves them with `sendNdjson`, `sendSse`, `toNdjson`, `toSse` or the web
 * `toResponse`, as it serves `client.stream()`.
 *
 * ```text
 * source:  --S--r--t--C--T--F--S--t--(E|)
 * toToolLoopChunks()
 * result:  -----0--1--2--3--------4--(5|)
 *   0 = reasoning_content, 1 = text, 2 = message.tool_calls, 3 = tool_result, 4 = text, 5 = done: true
 * ```
 *
 * 1. `text` → a chunk with that `content`; `reasoning` → `message.reasoning_content` (content `''`); `tool-call` →
 *    `message.tool_calls` with the call, complete (never fragments: `tool-call-delta`s are not written);
 *    `tool-result` → a chunk with the extension `tool_result` `{tool_call_id, name, outcome, content}` and an empty
 *    message. `step-start` and `step-finish` write nothing.
 * 2. Every chunk carries the extension `step` (the request to the model it belongs to, from 0), so a client can tell
 *    the steps' texts apart; `index` counts the chunks from 0 without gaps across the steps.
 * 3. `finish` → the last chunk, `done: true`, with the last step's `finish_reason` and `usage` summed over the steps.
 *    Clients that know only the spec's fields read the steps' texts one after another, then `done`.
 * 4. An error passes through (the writers make it the endpoint's error frame). Each subscription counts from 0.
 *
 * ## Example
 * ```ts
 * app.post('/agent/sse', (req, res) => {
 *   const demand = createDemandGate();
 *   void sendSse(res, runTools(client, req.body, { tools }).pipe(toToolLoopChunks()), { demand });
 * });
 * ```
 *
 * @returns An operator from {@link ToolLoopEvent}s to `LlmClientOutputChunk`s.
 */
export function toToolLoopChunks(): OperatorFunction<ToolLoopEvent, LlmClientOutputChunk> {
  return (source) =>
    new Observable<LlmClientOutputChunk>((subscriber) => {
      let index = 0;
      let step = 0;
      const emit = (message: OutputMessage, extra: Partial<LlmClientOutputChunk> = {}): void =>
        subscriber.next({ message, done: false, index: index++, step, ...extra });
      source.subscribe(
        createOperatorSubscriber<ToolLoopEvent>(subscriber, (event) => {
          switch (event.type) {
            case 'text':
              step = event.step;
              return emit({ role: 'assistant', content: event.text });
            case 'reasoning':
              step = event.step;
              return emit({ role: 'assistant', content: '', reasoning_content: event.text });
            case 'tool-call':
              step = event.step;
              return emit({
                role: 'assistant',
                content: '',
                tool_calls: [{ id: event.call.id, type: 'function', function: { name: event.call.name, arguments: event.call.arguments } }],
              });
            case 'tool-result':
              step = event.step;
              return emit(
                { role: 'assistant', content: '' },
                { tool_result: { tool_call_id: event.call.id, name: event.call.name, outcome: event.outcome, content: event.content } },
              );
            case 'finish': {
              const last: LlmClientOutputChunk = { message: { role: 'assistant', content: '' }, done: true, index: index++, step: event.steps - 1 };
              if (event.output.finish_reason !== undefined) last.finish_reason = event.output.finish_reason;
              if (event.output.usage !== undefined) last.usage = event.output.usage;
              return subscriber.next(last);
            }
            default:
              return undefined;
          }
        }),
      );
    });
}
