import { ChatRequest } from './schemas/index.js';
import { toInvalidRequestError } from './toInvalidRequestError.js';

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
  if (!parsed.success) throw toInvalidRequestError(parsed.error);
  const request = parsed.data;
  return request.model === undefined && defaultModel !== undefined ? { ...request, model: defaultModel } : request;
}
