import type { ChatCompletionRequest } from '../core/schemas/index.js';

/**
 * Whether a request is in DeepSeek's thinking mode: a reasoner model (`deepseek-reasoner`), or
 * `thinking: {"type": "enabled"}` (`{"type": "disabled"}` turns it off).
 *
 * @param request - A validated request.
 * @returns True in thinking mode.
 */
export function isThinkingMode(request: ChatCompletionRequest): boolean {
  const type = (request.thinking as { type?: unknown } | null | undefined)?.type;
  if (type === 'enabled') return true;
  if (type === 'disabled') return false;
  return /reasoner|thinking/i.test(request.model.split('#')[0] ?? request.model);
}
