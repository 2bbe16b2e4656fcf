import type { RetryPolicy } from '../core/retryPolicy.js';

/**
 * The wait before retry `attempt` (1-based), in ms, or `undefined` when the server asked for more than
 * `maxRetryAfterMs` (then the error is surfaced, not retried).
 *
 * A sane server hint wins as is; otherwise full jitter: `random() * min(maxDelayMs, baseDelayMs * 2^(attempt-1))`.
 */
export function computeRetryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterMs'>,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return retryAfterMs <= policy.maxRetryAfterMs ? Math.ceil(retryAfterMs) : undefined;
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const r = Math.min(1, Math.max(0, random()));
  return Math.floor(r * ceiling);
}
