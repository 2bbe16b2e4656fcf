import { checkRequestBounds } from '../core/checkRequestBounds.js';
import { RequestError } from '../core/errors.js';
import type { RequestLimitsConfig } from '../core/requestLimits.js';
import { resolveRequestLimits } from '../core/resolveRequestLimits.js';
import { ChatCompletionRequest } from '../core/schemas/index.js';
import { VALIDATED_CHAT_REQUESTS } from '../core/VALIDATED_CHAT_REQUESTS.js';

/**
 * Validates a downstream `ChatRequest` (model optional) or a full `ChatCompletionRequest` against the upstream
 * schema, filling in `model` from `defaultModel` when the request has none. Throws a
 * `RequestError('invalid_request')` with zod's issues as `path: message` lines (at most `limits.maxIssues`). The
 * request is first held to the request limits (`checkRequestBounds`), so validation costs what the limits allow.
 *
 * A request the serving core has just validated (`VALIDATED_CHAT_REQUESTS`: a `ChatRequest`, a subset of the upstream
 * schema, already held to the limits) is taken as it is, its model filled in: validated once, not twice.
 */
export function toCompletionRequest(
  request: unknown,
  defaultModel: string | undefined,
  limits: RequestLimitsConfig = {},
): ChatCompletionRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new RequestError('invalid_request', 'the chat request must be an object with `messages`');
  }
  const candidate = request as Record<string, unknown>;
  if (VALIDATED_CHAT_REQUESTS.has(request)) {
    const model = candidate.model ?? defaultModel;
    if (model !== undefined) return (candidate.model === undefined ? { ...candidate, model } : candidate) as ChatCompletionRequest;
  }
  checkRequestBounds(request, limits);
  const withModel =
    candidate.model === undefined && defaultModel !== undefined ? { ...candidate, model: defaultModel } : candidate;
  const parsed = ChatCompletionRequest.safeParse(withModel);
  if (parsed.success) return parsed.data;
  const all = parsed.error.issues;
  const issues = all
    .slice(0, resolveRequestLimits(limits).maxIssues)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  const more = all.length > issues.length ? `; and ${all.length - issues.length} more` : '';
  const hint =
    candidate.model === undefined && defaultModel === undefined
      ? ' (no `model` in the request and none configured on the client)'
      : '';
  return fail(`invalid chat request${hint}: ${issues.join('; ')}${more}`, issues);
}

function fail(message: string, issues: readonly string[]): never {
  throw new RequestError('invalid_request', message, { issues });
}
