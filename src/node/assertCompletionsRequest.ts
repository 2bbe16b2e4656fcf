import { RequestError } from '../core/errors.js';
import type { ChatRequest } from '../core/schemas/index.js';

/**
 * The check `POST /v1/chat/completions` adds to the chat endpoints' (whose schema, `ChatRequest`, already refuses a
 * `stream` that is not a boolean and a `stream_options` that is not an object with a boolean `include_usage`): one
 * choice. Its answers are the client's (`client.json`, `client.stream`), which follow one choice; the upstream is not
 * asked for choices nobody would see.
 *
 * @param request - The validated request.
 * @returns The request.
 * @throws RequestError `invalid_request` (400), saying which field to fix.
 */
export function assertCompletionsRequest(request: ChatRequest): ChatRequest {
  if (request.n != null && request.n > 1) {
    throw new RequestError('invalid_request', `n: this endpoint answers one choice, got n = ${request.n}; send n: 1 or leave it out`);
  }
  return request;
}
