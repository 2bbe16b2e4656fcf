import { checkRequestBounds } from './checkRequestBounds.js';
import { RequestError } from './errors.js';
import type { RequestLimitsConfig } from './requestLimits.js';
import { resolveRequestLimits } from './resolveRequestLimits.js';
import { ChatRequest } from './schemas/index.js';

/**
 * Validates a downstream request body with the zod {@link ChatRequest} schema and fills the default model.
 *
 * The body is first held to the request limits (`checkRequestBounds`: messages, nesting, values, characters), so the
 * schema's cost is bounded by them whatever the body; at most `limits.maxIssues` issues are kept.
 *
 * @param body - The parsed JSON body (or the JSON of `GET /chat/sse?q=`).
 * @param defaultModel - Used when the body names no model; when absent the client's own default applies.
 * @param limits - Overrides of `DEFAULT_REQUEST_LIMITS`.
 * @returns The valid request.
 * @throws RequestError `invalid_request` (400) whose message lists the first issues as `path: message`, or names
 *   the request limit the body passes.
 */
export function parseChatRequest(body: unknown, defaultModel?: string, limits: RequestLimitsConfig = {}): ChatRequest {
  checkRequestBounds(body, limits);
  const parsed = ChatRequest.safeParse(body);
  if (!parsed.success) {
    const all = parsed.error.issues;
    const issues = all.slice(0, resolveRequestLimits(limits).maxIssues).map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    const shown = issues.slice(0, 5).join('; ') + (all.length > 5 ? `; and ${all.length - 5} more` : '');
    throw new RequestError('invalid_request', `invalid request body: ${shown}`, { issues });
  }
  const request = parsed.data;
  return request.model === undefined && defaultModel !== undefined ? { ...request, model: defaultModel } : request;
}
