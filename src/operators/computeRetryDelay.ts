import type { RetryPolicy } from '../core/retryPolicy.js';

/**
 * The wait before retry `attempt` (1-based), in ms, or `undefined` when the server asked for more than
 * `maxRetryAfterMs` (then the error is surfaced, not retried).
 *
 * A sane server hint wins as is; otherwise full jitter: `random() * min(maxDelayMs, baseDelayMs * 2^(attempt-1))`.
 * Either way never less than `minDelayMs` (absent: 0): a `Retry-After: 0` does not remove the backoff.
 */
export function computeRetryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterMs'> & Partial<Pick<RetryPolicy, 'minDelayMs'>>,
  random: () => number = Math.random,
): number | undefined {
  const floor = policy.minDelayMs ?? 0;
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return retryAfterMs <= policy.maxRetryAfterMs ? Math.max(floor, Math.ceil(retryAfterMs)) : undefined;
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const r = Math.min(1, Math.max(0, random()));
  return Math.max(floor, Math.floor(r * ceiling));
}
