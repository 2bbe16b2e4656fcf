import type { EmulatorDialect } from './EmulatorDialect.js';

/**
 * The `usage` object of a dialect, with its fields in the provider's order (docs/PROVIDERS.md).
 *
 * @param dialect - The provider imitated.
 * @param promptTokens - Tokens of the request.
 * @param completionTokens - Tokens generated (reasoning included).
 * @param reasoningTokens - Of which reasoning; `undefined` for a model that does not reason.
 * @returns A plain object to serialise.
 */
export function dialectUsage(
  dialect: EmulatorDialect,
  promptTokens: number,
  completionTokens: number,
  reasoningTokens: number | undefined,
): Record<string, unknown> {
  const base = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (dialect === 'moonshot') return base;
  const details = { prompt_tokens_details: { cached_tokens: 0 } };
  if (dialect === 'openai')
    return { ...base, ...details, completion_tokens_details: { reasoning_tokens: reasoningTokens ?? 0 } };
  return {
    ...base,
    ...details,
    ...(reasoningTokens === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoningTokens } }),
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: promptTokens,
  };
}
