import type { ChunkDelta } from '../core/schemas/upstream.js';

/**
 * The answer text a delta carries, whatever its shape: `content` as a string, or the `text` parts of a content
 * array (Mistral's thinking models send `[{"type":"text","text":"…"}]`); `''` when there is none. Other parts
 * (`thinking`: see {@link deltaReasoning}; images, references) are not text.
 * Cost: one `typeof` for a string; an array is walked once.
 *
 * @param delta - A streamed choice's delta.
 * @returns The text, `''` when none.
 */
export function deltaContent(delta: ChunkDelta): string {
  const content: unknown = delta.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (let i = 0; i < content.length; i++) {
    const part = content[i] as { type?: unknown; text?: unknown } | null;
    if (part?.type === 'text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}
