import type { Usage } from '../core/schemas/index.js';

/** Anthropic's `usage` of a message: the input not read from the cache, the cache reads, the output. */
export interface AnthropicUsage {
  /** Prompt tokens not read from the provider's cache. */
  input_tokens: number;
  /** Prompt tokens written to a cache: `0` (OpenAI-compatible providers cache by themselves and do not report it). */
  cache_creation_input_tokens: number;
  /** Prompt tokens read from the provider's cache (DeepSeek's `prompt_cache_hit_tokens`, `cached_tokens`). */
  cache_read_input_tokens: number;
  /** Answer tokens, reasoning included. */
  output_tokens: number;
}

/**
 * A chat completion's usage in Anthropic's terms, where the whole prompt is `input_tokens + cache_read_input_tokens +
 * cache_creation_input_tokens`:
 *
 * | chat completions                                                                          | Anthropic                     |
 * | ----------------------------------------------------------------------------------------- | ----------------------------- |
 * | `prompt_cache_hit_tokens` (DeepSeek), else `prompt_tokens_details.cached_tokens`, else `cached_tokens` (Moonshot) | `cache_read_input_tokens` |
 * | `prompt_tokens` minus those                                                               | `input_tokens`                |
 * | `completion_tokens`                                                                       | `output_tokens`               |
 *
 * @param usage - The provider's usage (`undefined` when it sent none: zeros).
 * @returns Anthropic's usage.
 */
export function toAnthropicUsage(usage: Usage | undefined): AnthropicUsage {
  const prompt = usage?.prompt_tokens ?? 0;
  const cached = Math.min(prompt, usage?.prompt_cache_hit_tokens ?? usage?.prompt_tokens_details?.cached_tokens ?? usage?.cached_tokens ?? 0);
  return { input_tokens: prompt - cached, cache_creation_input_tokens: 0, cache_read_input_tokens: cached, output_tokens: usage?.completion_tokens ?? 0 };
}
