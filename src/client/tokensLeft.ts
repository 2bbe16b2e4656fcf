import type { ChatClientRequest } from './createChatClient.js';

/** What {@link tokensLeft} finds. */
export interface TokensLeft {
  /** The fewest tokens any of the request's limits still allows (`Infinity` when it sets none; 0 or less: none left). */
  left: number;
  /** The request's limits less what was delivered, to send with a continuation (only those the request set). */
  limits: { max_tokens?: number; max_completion_tokens?: number };
}

/**
 * What a continuation may still ask for: each token limit the request sets (`max_tokens`, `max_completion_tokens` —
 * the caller's, or the operator's cap that the gateway's request policy put there) less the tokens already delivered.
 * A continuation sent the original limit would let one answer run past it once per continuation.
 *
 * @param request - The caller's request.
 * @param delivered - The completion tokens of the answer so far (reported, or estimated for a cut segment).
 * @returns The tokens left and the limits to send.
 */
export function tokensLeft(request: ChatClientRequest, delivered: number): TokensLeft {
  let left = Infinity;
  const limits: TokensLeft['limits'] = {};
  for (const field of ['max_tokens', 'max_completion_tokens'] as const) {
    const asked = (request as { max_tokens?: unknown; max_completion_tokens?: unknown })[field];
    if (typeof asked !== 'number') continue;
    const rest = asked - delivered;
    left = Math.min(left, rest);
    limits[field] = Math.max(rest, 1);
  }
  return { left, limits };
}
