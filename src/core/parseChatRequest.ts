import { applyRequestPolicy } from './applyRequestPolicy.js';
import { checkRequestBounds } from './checkRequestBounds.js';
import type { ParseChatRequestConfig } from './ParseChatRequestConfig.js';
import { resolveRequestLimits } from './resolveRequestLimits.js';
import { ChatRequest } from './schemas/index.js';
import { toInvalidRequestError } from './toInvalidRequestError.js';

/**
 * Validates a downstream request body with the zod {@link ChatRequest} schema, fills the default model, and applies
 * the operator's policy.
 *
 * 1. Known fields are type-checked (a wrong one is named in the 400); unknown fields are kept: every field a client
 *    sends reaches the provider as sent, messages included (`tool_calls`, tool results, `reasoning_content`, `name`,
 *    `prefix`, content parts).
 * 2. With a `policy` (`RequestPolicyConfig`): a model not allowed, or `max_tokens` / `max_completion_tokens` /
 *    `n` over their caps, is refused; a request asking for no token limit gets the cap; listed fields are removed.
 *
 * The body is first held to the request limits (messages, nesting, values, characters), so the
 * schema's cost is bounded by them whatever the body; at most `limits.maxIssues` issues are kept.
 *
 * @param body - The parsed JSON body (or the JSON of `GET /chat/sse?q=`).
 * @param defaultModel - Used when the body names no model; when absent the client's own default applies.
 * @param config - The operator's `policy` (`RequestPolicyConfig`; default: everything) and the request `limits`
 *   (overrides of `DEFAULT_REQUEST_LIMITS`).
 * @returns The valid request, as it goes upstream.
 * @throws RequestError `invalid_request` (400) whose message lists the first issues as `path: message`, or names
 *   the request limit the body passes.
 */
export function parseChatRequest(body: unknown, defaultModel?: string, config: ParseChatRequestConfig = {}): ChatRequest {
  const { policy, limits = {} } = config;
  checkRequestBounds(body, limits);
  const parsed = ChatRequest.safeParse(body);
  if (!parsed.success) throw toInvalidRequestError(parsed.error, resolveRequestLimits(limits).maxIssues);
  const request = policy === undefined ? parsed.data : applyRequestPolicy(parsed.data, policy);
  return request.model === undefined && defaultModel !== undefined ? { ...request, model: defaultModel } : request;
}
