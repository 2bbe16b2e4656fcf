import { RequestError } from './errors.js';
import { ChatRequest } from './schemas/index.js';

/**
 * Validates a downstream request body with the zod {@link ChatRequest} schema and fills the default model.
 *
 * @param body - The parsed JSON body (or the JSON of `GET /chat/sse?q=`).
 * @param defaultModel - Used when the body names no model; when absent the client's own default applies.
 * @returns The valid request.
 * @throws RequestError `invalid_request` (400) whose message lists the first issues as `path: message`.
 */
export function parseChatRequest(body: unknown, defaultModel?: string): ChatRequest {
  const parsed = ChatRequest.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    const shown = issues.slice(0, 5).join('; ') + (issues.length > 5 ? `; and ${issues.length - 5} more` : '');
    throw new RequestError('invalid_request', `invalid request body: ${shown}`, { issues });
  }
  const request = parsed.data;
  return request.model === undefined && defaultModel !== undefined ? { ...request, model: defaultModel } : request;
}
