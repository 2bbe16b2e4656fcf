/**
 * The defaults of the serving options' `limits` (`RateLimitsConfig`) that are not limits: the failure policy when the
 * store cannot decide (`'local'`), the processes sharing the limits (1), how long a place lasts unrenewed (30000
 * ms), and the most answer tokens reserved at admission under token limits (1024). The gateway's `limits` section takes them from here.
 */
export const RATE_LIMIT_DEFAULTS = Object.freeze({
  /** What admission does while the store cannot decide: `'local'`, each process enforces its share of the limits. */
  onStoreFailure: 'local' as const,
  /** How many processes share the limits (a process's share under `'local'` is the limit divided by it). */
  expectedInstances: 1,
  /** How long a running request's place lasts without being renewed (a dead process's places free themselves), ms. */
  placeTtlMs: 30_000,
  /** The most answer tokens reserved at admission under token limits (`min(max_tokens, this)`; this without `max_tokens`). */
  reserveOutputTokens: 1024,
});
