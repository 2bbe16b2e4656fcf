/**
 * The defaults of the serving options' `limits` (`RateLimitsConfig`) that are not limits: the failure policy when the
 * store cannot decide (`'local'`), the processes sharing the limits (1), and how long a place lasts unrenewed (30000
 * ms). The gateway's `limits` section takes them from here.
 */
export const RATE_LIMIT_DEFAULTS = Object.freeze({
  onStoreFailure: 'local' as const,
  expectedInstances: 1,
  placeTtlMs: 30_000,
});
