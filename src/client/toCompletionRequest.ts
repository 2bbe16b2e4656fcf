import { checkRequestBounds } from '../core/checkRequestBounds.js';
import { RequestError } from '../core/errors.js';
import type { RequestLimitsConfig } from '../core/requestLimits.js';
import { resolveRequestLimits } from '../core/resolveRequestLimits.js';
import { ChatCompletionRequest } from '../core/schemas/index.js';

/**
 * Validates a downstream `ChatRequest` (model optional) or a full `ChatCompletionRequest` against the upstream
 * schema, filling in `model` from `defaultModel` when the request has none. Throws a
 * `RequestError('invalid_request')` with zod's issues as `path: message` lines (at most `limits.maxIssues`). The
 * request is first held to the request limits (`checkRequestBounds`), so validation costs what the limits allow.
 */
export function toCompletionRequest(
  request: unknown,
  defaultModel: string | undefined,
  limits: RequestLimitsConfig = {},
): ChatCompletionRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new RequestError('invalid_request', 'the chat request must be an object with `messages`');
  }
  checkRequestBounds(request, limits);
  const candidate = request as Record<string, unknown>;
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
