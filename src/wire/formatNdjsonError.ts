import type { ErrorBody } from '../core/schemas/contract.js';

/**
 * Writes the spec's NDJSON error line: `{"error":{"message","type","code"},"done":true}\n`.
 *
 * @param body - The public error body (see `toErrorResponse`); only `message`, `type` and `code` are written.
 * @returns The line, ending with `\n`.
 */
export function formatNdjsonError(body: ErrorBody): string {
  return `${JSON.stringify({ error: { message: body.message, type: body.type, code: body.code }, done: true })}\n`;
}
