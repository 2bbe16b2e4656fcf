import type { ChatCompletionRequest } from '../core/schemas/index.js';
import { isThinkingMode } from './isThinkingMode.js';

/** DeepSeek's message (HTTP 400, `invalid_request_error`) for a thinking-mode tool call sent back without its reasoning. */
const DEEPSEEK_THINKING_MESSAGE = 'The `reasoning_content` in the thinking mode must be passed back to the API.';

/**
 * DeepSeek's check of a thinking-mode conversation with tools (api-docs.deepseek.com, "thinking mode", tool calls):
 * every assistant message that made tool calls must come back with its `reasoning_content`, or the API answers
 * HTTP 400 — the most reported DeepSeek problem of client projects.
 *
 * @param request - A validated request.
 * @returns DeepSeek's error message when the request breaks the rule, else `undefined`.
 */
export function deepseekThinkingError(request: ChatCompletionRequest): string | undefined {
  if (!isThinkingMode(request)) return undefined;
  for (const message of request.messages) {
    if (message.role !== 'assistant' || (message.tool_calls?.length ?? 0) === 0) continue;
    if (typeof message.reasoning_content !== 'string') return DEEPSEEK_THINKING_MESSAGE;
  }
  return undefined;
}
