import type { RateLimitDecision, RateLimitRule } from '../store/RateLimitStore.js';

const DAY_S = 86_400;
/** A month's window in `RateLimit-Policy` (30 days; the budget itself runs to the end of the UTC month). */
const MONTH_S = 30 * DAY_S;

/** A duration as OpenAI's `x-ratelimit-reset-*` headers write it: `850ms`, `1.5s`, `6m0s`. */
const openAiDuration = (ms: number): string => {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms - minutes * 60_000) / 10) / 100;
  return minutes === 0 ? `${seconds}s` : `${minutes}m${seconds}s`;
};

/**
 * The rate-limit headers of one decision: OpenAI's `x-ratelimit-{limit,remaining,reset}-requests` (with a
 * `requestsPerMinute`), and the IETF fields (draft-ietf-httpapi-ratelimit-headers) `RateLimit-Policy` — the quotas:
 * `"requests";q=<per minute>;w=60`, `"concurrency";q=<at once>`, `"tokens";q=<per minute>;w=60`, `"budget";q=<per
 * day or month>;w=<86400 or 2592000>` — and `RateLimit` — what is left: `"requests";r=<remaining>;t=<seconds until
 * whole>`, `"concurrency";r=<free places>`, `"tokens";r=…;t=…`, `"budget";r=…;t=<seconds until the period ends>`. With
 * token limits also `x-ratelimit-{limit,remaining,reset}-tokens` (the least of the key's and its model's).
 *
 * @param rule - The limits applied.
 * @param decision - The store's decision.
 * @returns The headers (empty without limits).
 */
export function rateLimitHeaders(rule: RateLimitRule, decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {};
  const policies: string[] = [];
  const left: string[] = [];
  const { requestsPerMinute: rpm, maxConcurrent: max } = rule;
  if (rpm !== undefined) {
    const remaining = decision.requests?.remaining ?? 0;
    const resetMs = decision.requests?.resetMs ?? 0;
    headers['x-ratelimit-limit-requests'] = String(rpm);
    headers['x-ratelimit-remaining-requests'] = String(remaining);
    headers['x-ratelimit-reset-requests'] = openAiDuration(resetMs);
    policies.push(`"requests";q=${rpm};w=60`);
    left.push(`"requests";r=${remaining};t=${Math.ceil(resetMs / 1000)}`);
  }
  if (max !== undefined) {
    policies.push(`"concurrency";q=${max}`);
    left.push(`"concurrency";r=${decision.concurrency?.remaining ?? 0}`);
  }
  const tpm = rule.tokensPerMinute ?? rule.modelTokensPerMinute;
  if (tpm !== undefined && decision.tokens !== undefined) {
    const limit = Math.min(tpm, rule.modelTokensPerMinute ?? tpm);
    const { remaining, resetMs } = decision.tokens;
    headers['x-ratelimit-limit-tokens'] = String(limit);
    headers['x-ratelimit-remaining-tokens'] = String(remaining);
    headers['x-ratelimit-reset-tokens'] = openAiDuration(resetMs);
    policies.push(`"tokens";q=${limit};w=60`);
    left.push(`"tokens";r=${remaining};t=${Math.ceil(resetMs / 1000)}`);
  }
  if (decision.budget !== undefined) {
    const daily = rule.tokensPerDay !== undefined && (rule.tokensPerMonth === undefined || decision.budget.resetMs <= DAY_S * 1000);
    const quota = daily ? rule.tokensPerDay : rule.tokensPerMonth;
    policies.push(`"budget";q=${quota ?? 0};w=${daily ? DAY_S : MONTH_S}`);
    left.push(`"budget";r=${decision.budget.remaining};t=${Math.ceil(decision.budget.resetMs / 1000)}`);
  }
  if (policies.length > 0) {
    headers['RateLimit-Policy'] = policies.join(', ');
    headers.RateLimit = left.join(', ');
  }
  return headers;
}
