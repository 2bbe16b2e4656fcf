import type { LlmClientOutputChunk } from '../core/schemas/index.js';
import { toErrorResponse } from '../core/toErrorResponse.js';

/**
 * The chunk that tells a caller who accepts a restart (`acceptRestart`) that the answer starts again: an empty message,
 * `done: false`, and `restart: {code}` — the public code of the cut that could not be continued (`network`, `timeout`,
 * `stream_incomplete`, …). The caller discards the text it received; the whole answer follows.
 *
 * @param error - The cut.
 * @returns The restart chunk (numbered by the stream it goes in).
 */
export function restartChunk(error: unknown): LlmClientOutputChunk {
  return { message: { role: 'assistant', content: '' }, done: false, index: 0, restart: { code: toErrorResponse(error).body.code } };
}
