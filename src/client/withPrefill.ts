import type { ChatCompletionRequest } from '../core/schemas/index.js';

/**
 * How a target continues an answer from a prefix: `deepseek` (chat prefix completion: the last message is
 * `{role: 'assistant', content, prefix: true}`, on DeepSeek's beta base URL), `mistral` (the same `prefix: true`, on
 * the target's own base URL), `moonshot` (Kimi's partial mode: `partial: true`; Qwen's too), `assistant` (a plain
 * trailing assistant message: servers that continue a prefill).
 */
export type PrefillDialect = 'deepseek' | 'mistral' | 'moonshot' | 'assistant';

/**
 * The request that asks a target to continue `content`: the original messages, then the partial answer as an
 * assistant message marked as the target's dialect wants. The reasoning so far goes along as `reasoning_content`
 * when the answer's text has not begun (DeepSeek's thinking mode takes it back there).
 *
 * @param request - The original request (its `model` already the target's).
 * @param content - The answer's text so far.
 * @param reasoning - The reasoning so far.
 * @param dialect - How the target marks a prefix.
 * @returns A new request; the original is not changed.
 */
export function withPrefill(
  request: ChatCompletionRequest,
  content: string,
  reasoning: string,
  dialect: PrefillDialect,
): ChatCompletionRequest {
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (content === '' && reasoning !== '') message.reasoning_content = reasoning;
  if (dialect === 'deepseek' || dialect === 'mistral') message.prefix = true;
  if (dialect === 'moonshot') message.partial = true;
  return { ...request, messages: [...request.messages, message as ChatCompletionRequest['messages'][number]] };
}
