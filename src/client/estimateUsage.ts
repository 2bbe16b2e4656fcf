import type { Usage } from '../core/schemas/index.js';
import type { ChatClientRequest } from './createChatClient.js';

/** About the tokens of a text: one per 4 ASCII characters, one per other character (CJK). */
const tokensOf = (text: string): number => {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii++;
    else if (code < 0xdc00 || code > 0xdfff) other++; // a surrogate pair counts once
  }
  return Math.ceil(ascii / 4) + other;
};

/** The text of a message's `content`: a string, or the `text` of its parts. */
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: unknown } | null) => (typeof part?.text === 'string' ? part.text : '')).join('')
      : '';

/**
 * The usage of a segment whose provider never reported it (a stream cut before its usage came): one completion token
 * per piece it streamed (providers stream about one token per chunk), and the prompt it was sent counted by its
 * characters (one token per 4 ASCII characters, one per other character, 4 per message). An estimate: the route flags
 * it (`usage_estimated`).
 *
 * @param request - The request the segment answered (with its prefill, if any).
 * @param pieces - How many chunks of the segment carried a piece of the answer.
 * @returns The estimated usage.
 */
export function estimateUsage(request: ChatClientRequest | undefined, pieces: number): Usage {
  const messages = (request?.messages ?? []) as ReadonlyArray<{ content?: unknown }>;
  const prompt = messages.reduce((sum, message) => sum + 4 + tokensOf(textOf(message.content)), 0);
  return { prompt_tokens: prompt, completion_tokens: pieces, total_tokens: prompt + pieces };
}
