import type { RateLimitRule, RateLimitStore } from '../store/RateLimitStore.js';

/** What the serving core does when its shared {@link RateLimitStore} cannot decide (see `RateLimitsConfig.onStoreFailure`). */
export type RateLimitStoreFailurePolicy = 'local' | 'open' | 'closed';

/** What `RateLimitsConfig.onStoreError` is told: the store failed (or answers again), and what the core does meanwhile. */
export interface RateLimitStoreEvent {
  /** `'failing'`: the store stopped deciding (told once per outage); `'recovered'`: it decides again. */
  readonly state: 'failing' | 'recovered';
  /** The failure policy applied meanwhile. */
  readonly policy: RateLimitStoreFailurePolicy;
  /** The store's error (with `'failing'`). */
  readonly error?: unknown;
}

/**
 * The per-key limits of the serving options (`ServingOptionsSchema`'s `limits`): requests per minute and requests
 * running at once, for every client (its key, else its address: `clientKey`), with rules per client. Without a
 * `store` they hold in this process (`createMemoryRateLimitStore`); with a shared one (`createRedisRateLimitStore` of
 * `chatflux/redis`) across processes and instances. Every response then carries `x-ratelimit-*-requests` and the
 * IETF `RateLimit-Policy` / `RateLimit` fields; a refusal is 429 `rate_limit_exceeded` with `Retry-After` and
 * `retry-after-ms`.
 */
export interface RateLimitsConfig extends RateLimitRule {
  /** Rules per client key (what `clientKey` returns; `key:<hash>` of an API key by default): each field replaces the default's. */
  readonly perClient?: Readonly<Record<string, RateLimitRule>>;
  /** Where the decisions are made. Default: an in-memory store of this process. */
  readonly store?: RateLimitStore;
  /**
   * When the store cannot decide: `'local'` (default) — this process enforces each limit divided by
   * `expectedInstances` in memory; `'open'` — requests are admitted unlimited; `'closed'` — 503 `limits_unavailable`.
   * Each outage is told to `onStoreError` (default: a process warning).
   */
  readonly onStoreFailure?: RateLimitStoreFailurePolicy;
  /** How many processes share the store, for the `'local'` policy's share of each limit. Default 1. */
  readonly expectedInstances?: number;
  /** How long a held place lasts without renewal (renewed every third of it): a dead process's places free after it, in ms. Default 30000. */
  readonly placeTtlMs?: number;
  /** Told when the store starts failing and when it answers again. Default: `process.emitWarning`. */
  readonly onStoreError?: (event: RateLimitStoreEvent) => void;
}
