import { RequestError } from '../core/errors.js';
import type { ChatRequest } from '../core/schemas/index.js';

const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value).slice(0, 40) : typeof value);

/**
 * The checks `POST /v1/chat/completions` adds to the chat endpoints' (the contract's schema keeps OpenAI's fields
 * as sent):
 *
 * 1. One choice. Its answers are the client's (`client.json`, `client.stream`), which follow one choice; the upstream
 *    is not asked for choices nobody would see.
 * 2. `stream` a boolean (or absent, or null): it names the wire, so `"yes"` is refused rather than served whole.
 * 3. `stream_options` an object (or absent, or null) whose `include_usage` is a boolean (or absent, or null).
 *
 * @param request - The validated request.
 * @returns The request.
 * @throws RequestError `invalid_request` (400), saying which field to fix.
 */
export function assertCompletionsRequest(request: ChatRequest): ChatRequest {
  if (request.n != null && request.n > 1) {
    throw new RequestError('invalid_request', `n: this endpoint answers one choice, got n = ${request.n}; send n: 1 or leave it out`);
  }
  const { stream, stream_options: options } = request as { stream?: unknown; stream_options?: unknown };
  if (stream != null && typeof stream !== 'boolean') {
    throw new RequestError('invalid_request', `stream: expected a boolean (true for a stream of chunks), got ${shown(stream)}`);
  }
  if (options == null) return request;
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new RequestError('invalid_request', `stream_options: expected an object such as { "include_usage": true }, got ${shown(options)}`);
  }
  const usage = (options as { include_usage?: unknown }).include_usage;
  if (usage != null && typeof usage !== 'boolean') {
    throw new RequestError('invalid_request', `stream_options.include_usage: expected a boolean, got ${shown(usage)}`);
  }
  return request;
}
