import { RequestError } from '../core/errors.js';
import type { ChatRequest } from '../core/schemas/index.js';

/**
 * The check of `n` on endpoints that answer one choice: `POST /v1/chat/completions` always (its answers are the
 * client's `json` / `stream`, which follow one choice), and `/chat/json`, `/chat/stream`, `/chat/sse` unless the
 * server allows several choices (`allowSeveralChoices`): the contract has one message, so the upstream would
 * generate — and bill — `n` answers of which the client sees the first. `n: 1` and no `n` pass.
 *
 * @param request - The validated request.
 * @returns The request.
 * @throws RequestError `invalid_request` (400), saying why and which field to fix.
 */
export function assertOneChoice(request: ChatRequest): ChatRequest {
  if (request.n != null && request.n > 1) {
    const message = `n: this endpoint answers one choice, got n = ${request.n} (the upstream would generate ${request.n} answers, all billed, and only the first would be sent); send n: 1 or leave it out`;
    throw new RequestError('invalid_request', `invalid request body: ${message}`, { issues: [message] });
  }
  return request;
}
