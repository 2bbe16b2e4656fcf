import type { ChunkDelta } from '../core/schemas/upstream.js';

const filled = (value: unknown): boolean => (typeof value === 'string' ? value !== '' : Array.isArray(value) && value.length > 0);

/**
 * Whether a streamed delta carries a piece of the answer: text (a string, or content parts), reasoning
 * (`reasoning_content`, `reasoning`), a tool-call fragment or a refusal. A role, an empty string or an empty list is
 * not one. What a cut answer has delivered (`continueAfterCut`'s `pieces`, a route's restart) is counted with it.
 *
 * @param delta - A streamed choice's delta.
 * @returns Whether it carries a piece of the answer.
 */
export function isAnswerPiece(delta: ChunkDelta): boolean {
  return (
    filled(delta.content) ||
    filled(delta.reasoning_content) ||
    filled(delta.reasoning) ||
    (delta.tool_calls?.length ?? 0) > 0 ||
    filled(delta.refusal)
  );
}
