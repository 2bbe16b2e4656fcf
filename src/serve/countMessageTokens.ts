import { estimateUsage } from '../client/estimateUsage.js';
import type { ChatRequest } from '../core/schemas/index.js';

/**
 * The answer of Anthropic's `POST /v1/messages/count_tokens`: an ESTIMATE of the request's input tokens, not the
 * provider's count (OpenAI-compatible providers have no counting endpoint, and their tokenizers differ): the
 * characters of the messages' text and of the tools' definitions, one token per 4 ASCII characters and one per other
 * character, 4 per message — the estimate a route uses for a segment cut before its usage came (`estimateUsage`).
 *
 * @param request - The request, translated (`fromAnthropicRequest`) and checked.
 * @returns `{ input_tokens }`.
 */
export function countMessageTokens(request: ChatRequest): { input_tokens: number } {
  const tools = request.tools === undefined || request.tools === null ? [] : [{ content: JSON.stringify(request.tools) }];
  return { input_tokens: estimateUsage({ messages: [...request.messages, ...tools] } as never, 0).prompt_tokens ?? 0 };
}
