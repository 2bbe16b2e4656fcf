import { map, type OperatorFunction } from 'rxjs';
import type { LlmClientOutput } from '../core/schemas/contract.js';
import type { ChatCompletion, CompletionMessage } from '../core/schemas/upstream.js';
import { routeExtensions } from './routeExtensions.js';

/**
 * Turns the contract's answer (`client.json()`, the `/chat/json` body) into OpenAI's `chat.completion`: the
 * non-streaming `POST /v1/chat/completions` answer.
 *
 * ```text
 * source:              ------(o|)        o: {id, model, created, message, finish_reason, usage}
 * toChatCompletion():  ------(C|)        C: {id, object:"chat.completion", created, model,
 *                                            choices:[{index:0, message, finish_reason, logprobs:null}], usage}
 * ```
 *
 * 1. The message is `{role: "assistant", content, reasoning_content?, tool_calls?, refusal}`: `content` is `null`
 *    when the answer is only tool calls or a refusal (as OpenAI sends it), `refusal` `null` when there is none.
 * 2. `finish_reason` is the provider's (`stop` when it named none); `usage` the provider's, at the top level (Moonshot's
 *    too), left out when it sent none. An empty id becomes `chatcmpl-<uuid>`.
 * 3. Through a route, `model` is the one that finished the answer, and its report (`provider`, `target`, `attempts`,
 *    `usage_estimated`) is added as extension fields at the top level.
 *
 * @returns An operator from the contract's answer to a `chat.completion`.
 */
export function toChatCompletion(): OperatorFunction<LlmClientOutput, ChatCompletion> {
  return map((output) => {
    const { content, reasoning_content, refusal, tool_calls } = output.message;
    const onlyCalls = content === '' && ((tool_calls?.length ?? 0) > 0 || refusal !== undefined);
    const message: CompletionMessage = { role: 'assistant', content: onlyCalls ? null : content };
    if (reasoning_content !== undefined) message.reasoning_content = reasoning_content;
    if (tool_calls !== undefined && tool_calls.length > 0) message.tool_calls = tool_calls;
    message.refusal = refusal ?? null;
    const completion: ChatCompletion = {
      id: output.id === '' ? `chatcmpl-${crypto.randomUUID()}` : output.id,
      object: 'chat.completion',
      created: output.created,
      model: output.model,
      choices: [{ index: 0, message, finish_reason: output.finish_reason ?? 'stop', logprobs: null }],
    };
    if (output.usage !== undefined) completion.usage = output.usage;
    return { ...completion, ...routeExtensions(output) };
  });
}
