import { applyRequestPolicy } from './applyRequestPolicy.js';
import type { RequestPolicyConfig } from './RequestPolicyConfig.js';
import { ChatRequest } from './schemas/index.js';
import { toInvalidRequestError } from './toInvalidRequestError.js';

/**
 * Validates a downstream request body with the zod {@link ChatRequest} schema, fills the default model, and applies
 * the operator's policy.
 *
 * 1. Known fields are type-checked (a wrong one is named in the 400); unknown fields are kept: every field a client
 *    sends reaches the provider as sent, messages included (`tool_calls`, tool results, `reasoning_content`, `name`,
 *    `prefix`, content parts).
 * 2. With a `policy` ({@link RequestPolicyConfig}): a model not allowed, or `max_tokens` / `max_completion_tokens` /
 *    `n` over their caps, is refused; a request asking for no token limit gets the cap; listed fields are removed.
 *
 * @param body - The parsed JSON body (or the JSON of `GET /chat/sse?q=`).
 * @param defaultModel - Used when the body names no model; when absent the client's own default applies.
 * @param policy - What the server's operator allows (default: everything).
 * @returns The valid request, as it goes upstream.
 * @throws RequestError `invalid_request` (400) whose message lists the first issues as `path: message`.
 */
export function parseChatRequest(body: unknown, defaultModel?: string, policy?: RequestPolicyConfig): ChatRequest {
  const parsed = ChatRequest.safeParse(body);
  if (!parsed.success) throw toInvalidRequestError(parsed.error);
  const request = policy === undefined ? parsed.data : applyRequestPolicy(parsed.data, policy);
  return request.model === undefined && defaultModel !== undefined ? { ...request, model: defaultModel } : request;
}
