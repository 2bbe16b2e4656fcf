import { RequestError } from '../core/errors.js';
import { parseChatRequest } from '../core/parseChatRequest.js';
import type { ParseChatRequestConfig } from '../core/ParseChatRequestConfig.js';
import type { ChatRequest } from '../core/schemas/index.js';

/**
 * The request of `GET /chat/sse`: the JSON in `q`, or the demo request when there is no `q`. Shared by the node
 * serving core and the web handlers, so both refuse with the same statuses and messages.
 *
 * @param q - The `q` query parameter: a string, an array when repeated (anything not a string is refused), or `undefined`.
 * @param limit - The longest `q` in characters; longer gets 413.
 * @param demo - The request served without `q`; absent: 400.
 * @param model - The default model.
 * @param parseConfig - Policy and limits, as for a POST body.
 * @returns The validated request.
 * @throws RequestError `invalid_request` (400) or `payload_too_large` (413).
 */
export function readChatQuery(
  q: unknown,
  limit: number,
  demo: ChatRequest | undefined,
  model: string | undefined,
  parseConfig: ParseChatRequestConfig,
): ChatRequest {
  if (q === undefined) {
    if (demo !== undefined) return parseChatRequest(demo, model, parseConfig);
    throw new RequestError('invalid_request', 'GET /chat/sse needs the request as URL-encoded JSON in the `q` query parameter');
  }
  if (typeof q !== 'string') throw new RequestError('invalid_request', 'give the `q` query parameter once, as URL-encoded JSON');
  if (q.length > limit) throw new RequestError('payload_too_large', `the \`q\` query parameter is longer than ${limit} characters`);
  let body: unknown;
  try {
    body = JSON.parse(q);
  } catch (error) {
    throw new RequestError('invalid_request', 'the `q` query parameter is not valid JSON', { cause: error });
  }
  return parseChatRequest(body, model, parseConfig);
}
