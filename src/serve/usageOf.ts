import type { Usage } from '../core/schemas/index.js';

/** Anthropic's usage (`/v1/messages`' message and `message_delta`), as the log counts: the whole prompt, the answer. */
interface AnthropicUsageLike {
  input_tokens: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * The usage a written value carries: a chunk's `usage`, the `usage` of the `data` of a `/chat/json` answer or of the
 * `messageMetadata` of a `/chat/ui` `finish` part; an
 * Anthropic usage (`input_tokens`, …) in the log's terms (`prompt_tokens` its whole prompt, cache reads included); an
 * all-zero Anthropic usage is none (the upstream sent none: `toAnthropicUsage(undefined)`).
 *
 * @param value - A value the writer wrote.
 * @returns Its usage, if it has one.
 */
export function usageOf(value: unknown): Usage | undefined {
  const record = value as { usage?: Usage | AnthropicUsageLike; data?: { usage?: Usage }; messageMetadata?: { usage?: Usage } } | null;
  const usage = record?.usage ?? record?.data?.usage ?? record?.messageMetadata?.usage;
  if (usage === undefined || typeof (usage as Partial<AnthropicUsageLike>).input_tokens !== 'number') return usage as Usage | undefined;
  const anthropic = usage as AnthropicUsageLike;
  const cached = anthropic.cache_read_input_tokens ?? 0;
  const prompt = anthropic.input_tokens + cached + (anthropic.cache_creation_input_tokens ?? 0);
  const completion = anthropic.output_tokens ?? 0;
  // All zeros is what `toAnthropicUsage` writes where the upstream sent no usage (Anthropic's wire must carry one), not
  // a usage: none, as a chunk without one (the token limits then settle at the estimate, flagged so). A real answer
  // always read a prompt.
  if (prompt === 0 && completion === 0) return undefined;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}) };
}
