import { map, type OperatorFunction } from 'rxjs';
import { StreamProtocolError } from '../core/errors.js';
import type { LlmClientOutput } from '../core/schemas/contract.js';
import type { AnthropicContentBlock, AnthropicMessage } from './AnthropicEvent.js';
import { routeExtensions, type RouteExtensions } from './routeExtensions.js';
import { toAnthropicStopReason } from './toAnthropicStopReason.js';
import { toAnthropicUsage } from './toAnthropicUsage.js';

/** Options of {@link toAnthropicMessage}. */
export interface ToAnthropicMessageConfig {
  /** The model the message names (the one the client asked for). */
  model: string;
}

/**
 * Turns the contract's answer (`client.json()`, the `/chat/json` body) into Anthropic's `message`: the non-streaming
 * `POST /v1/messages` answer.
 *
 * ```text
 * source:                ------(o|)      o: {id, message {reasoning_content, content, tool_calls}, finish_reason, usage}
 * toAnthropicMessage():  ------(M|)      M: {id:"msg_…", type:"message", role:"assistant", model,
 *                                            content:[thinking?, text?, tool_use…], stop_reason, stop_sequence:null, usage}
 * ```
 *
 * 1. The blocks are in the stream's order (`toAnthropicEvents`): the reasoning as a `thinking` block, the text (or a
 *    refusal) as a `text` block, each tool call as a `tool_use` block whose `input` is its parsed arguments.
 * 2. `stop_reason` by `toAnthropicStopReason`, `usage` by `toAnthropicUsage`; a route's report as extension fields.
 * 3. A tool call whose arguments are not a JSON object is a `StreamProtocolError` (`malformed_json`): Anthropic's
 *    `input` is an object, and a guess would hand the client a call the model did not make.
 *
 * @param config - The model named.
 * @returns An operator from the contract's answer to Anthropic's message.
 */
export function toAnthropicMessage(config: ToAnthropicMessageConfig): OperatorFunction<LlmClientOutput, AnthropicMessage & RouteExtensions> {
  return map((output) => {
    const { content, reasoning_content, refusal, tool_calls } = output.message;
    const blocks: AnthropicContentBlock[] = [];
    if (reasoning_content !== undefined && reasoning_content !== '') blocks.push({ type: 'thinking', thinking: reasoning_content, signature: '' });
    const text = content + (refusal ?? '');
    if (text !== '') blocks.push({ type: 'text', text });
    for (const call of tool_calls ?? []) {
      let input: unknown;
      try {
        input = JSON.parse(call.function.arguments === '' ? '{}' : call.function.arguments);
      } catch {
        input = undefined;
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new StreamProtocolError('malformed_json', `the arguments of the tool call ${call.id} (${call.function.name}) are not a JSON object`);
      }
      blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input });
    }
    const id = `msg_${output.id === '' ? crypto.randomUUID().replaceAll('-', '') : output.id}`;
    return {
      id,
      type: 'message',
      role: 'assistant',
      model: config.model,
      content: blocks,
      stop_reason: toAnthropicStopReason(output.finish_reason),
      stop_sequence: null,
      usage: toAnthropicUsage(output.usage),
      ...routeExtensions(output),
    };
  });
}
