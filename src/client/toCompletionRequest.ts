import { RequestError } from '../core/errors.js';
import { ChatCompletionRequest } from '../core/schemas/index.js';

/**
 * Validates a downstream `ChatRequest` (model optional) or a full `ChatCompletionRequest` against the upstream
 * schema, filling in `model` from `defaultModel` when the request has none. Throws a
 * `RequestError('invalid_request')` with zod's issues as `path: message` lines.
 */
export function toCompletionRequest(request: unknown, defaultModel: string | undefined): ChatCompletionRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new RequestError('invalid_request', 'the chat request must be an object with `messages`');
  }
  const candidate = request as Record<string, unknown>;
  const withModel =
    candidate.model === undefined && defaultModel !== undefined ? { ...candidate, model: defaultModel } : candidate;
  const parsed = ChatCompletionRequest.safeParse(withModel);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`,
  );
  const hint =
    candidate.model === undefined && defaultModel === undefined
      ? ' (no `model` in the request and none configured on the client)'
      : '';
  return fail(`invalid chat request${hint}: ${issues.join('; ')}`, issues);
}

function fail(message: string, issues: readonly string[]): never {
  throw new RequestError('invalid_request', message, { issues });
}
