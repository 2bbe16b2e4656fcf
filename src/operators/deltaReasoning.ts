import type { ChunkDelta } from '../core/schemas/upstream.js';

const thinkingOf = (thinking: unknown): string => {
  if (typeof thinking === 'string') return thinking;
  if (!Array.isArray(thinking)) return '';
  let text = '';
  for (let i = 0; i < thinking.length; i++) {
    const part = thinking[i] as { text?: unknown } | null;
    if (typeof part?.text === 'string') text += part.text;
  }
  return text;
};

/**
 * The reasoning a delta carries, from whichever field its provider uses — one rule for every output:
 *
 * 1. `reasoning_content` (DeepSeek, Kimi, Qwen, xAI) when it is a non-empty string;
 * 2. else `reasoning` (OpenRouter, Groq, vLLM, the Vercel AI gateway) when it is a non-empty string;
 * 3. else the `thinking` parts of a content array (Mistral: `[{"type":"thinking","thinking":[{"type":"text",…}]}]`,
 *    or a `thinking` string);
 * 4. else `''` when `reasoning_content` or `reasoning` is `''` (a reasoning model's opening delta), else `undefined`.
 *
 * One field per delta: a server that sends the same piece under two names is not counted twice.
 * Cost: two `typeof`s for a plain text delta.
 *
 * @param delta - A streamed choice's delta.
 * @returns The reasoning piece, `''` for an empty one, `undefined` when the delta has no reasoning field.
 */
export function deltaReasoning(delta: ChunkDelta): string | undefined {
  const named = delta.reasoning_content;
  if (typeof named === 'string' && named !== '') return named;
  const other = delta.reasoning;
  if (typeof other === 'string' && other !== '') return other;
  const content: unknown = delta.content;
  if (Array.isArray(content)) {
    let text: string | undefined;
    for (let i = 0; i < content.length; i++) {
      const part = content[i] as { type?: unknown; thinking?: unknown } | null;
      if (part?.type === 'thinking') text = (text ?? '') + thinkingOf(part.thinking);
    }
    if (text !== undefined) return text;
  }
  return typeof named === 'string' || typeof other === 'string' ? '' : undefined;
}
