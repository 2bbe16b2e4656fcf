import type { ErrorBody } from '../core/schemas/contract.js';
import { SSE_DONE } from './sseDone.js';

/**
 * Writes the spec's SSE error: `event: error` with the error body as data, then the final `data: [DONE]` frame.
 *
 * ```text
 * event: error
 * data: {"message":"…","type":"…","code":"…"}
 *
 * data: [DONE]
 *
 * ```
 *
 * @param body - The public error body (see `toErrorResponse`); only `message`, `type` and `code` are written.
 * @returns Both frames' text.
 */
export function formatSseError(body: ErrorBody): string {
  const data = JSON.stringify({ message: body.message, type: body.type, code: body.code });
  return `event: error\ndata: ${data}\n\n${SSE_DONE}`;
}
