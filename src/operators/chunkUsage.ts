import type { ChatCompletionChunk, Usage } from '../core/schemas/upstream.js';

/**
 * The usage a chunk carries for the whole answer: the top-level `usage`, else Groq's `x_groq.usage` (Moonshot's
 * `choices[i].usage` belongs to its choice and is read per choice). `undefined` when there is none.
 *
 * @param chunk - A decoded chunk.
 * @returns The usage, or `undefined`.
 */
export function chunkUsage(chunk: ChatCompletionChunk): Usage | undefined {
  return chunk.usage ?? chunk.x_groq?.usage ?? undefined;
}
