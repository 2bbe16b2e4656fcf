import type { RateLimitRule, RateLimitStore } from '../store/RateLimitStore.js';

/** The limits a client may set in `RateLimitsConfig` and `perClient` (the store's rule, without the per-model one). */
export type RateLimitClientRule = Omit<RateLimitRule, 'modelTokensPerMinute'>;

/** The weights of a request's tokens in the token limits and budgets (`RateLimitsConfig.tokenWeights`). */
export interface RateLimitTokenWeights {
  /** Per prompt token not served from the provider's cache. Default 1. */
  readonly input?: number;
  /** Per prompt token served from the provider's cache (`cached_tokens`, DeepSeek's cache hits). Default 1. */
  readonly cachedInput?: number;
  /** Per answer token (reasoning included). Default 1. */
  readonly output?: number;
}

/** What `RateLimitsConfig.onSettle` is told at the end of each request admitted under token limits. */
export interface RateLimitSettleEvent {
  /** The client key. */
  readonly client: string;
  /** The weighted tokens reserved at admission. */
  readonly reserved: number;
  /** The weighted tokens charged: the usage the upstream reported, else (`estimated`) what was emitted. */
  readonly used: number;
  /** `true` when no usage came (a cancelled or cut answer): `used` counts the prompt's estimate and one token per piece emitted. */
  readonly estimated: boolean;
  /** Reservations of dead processes that its admission found expired and charged at their estimate. */
  readonly expiredReservations: number;
}

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
 * The per-key limits of the serving options (`ServingOptionsSchema`'s `limits`): requests per minute, requests
 * running at once, weighted tokens per minute (per client, and per client and model: `perModel`) and token budgets per
 * UTC day and month, for every client (its key, else its address: `clientKey`), with rules per client. Tokens are
 * reserved at admission (the prompt's estimate + `min(max_tokens, reserveOutputTokens)`) and settled with the real
 * usage at the end (a cancelled or cut answer: what was emitted, estimated); a spent budget is 429
 * `insufficient_quota` with `x-should-retry: false`. Without a
 * `store` they hold in this process (`createMemoryRateLimitStore`); with a shared one (`createRedisRateLimitStore` of
 * `chatflux/redis`) across processes and instances. Every response then carries `x-ratelimit-*-requests` and the
 * IETF `RateLimit-Policy` / `RateLimit` fields; a refusal is 429 `rate_limit_exceeded` with `Retry-After` and
 * `retry-after-ms`.
 */
export interface RateLimitsConfig extends RateLimitClientRule {
  /** Rules per client key (what `clientKey` returns; `key:<hash>` of an API key by default): each field replaces the default's. */
  readonly perClient?: Readonly<Record<string, RateLimitClientRule>>;
  /**
   * Weighted tokens per minute per client AND model, by model name (the request's `model`, else the client's
   * default): a second GCRA beside `tokensPerMinute`. Only the models named here are limited (and stored).
   */
  readonly perModel?: Readonly<
    Record<
      string,
      {
        /** Weighted tokens per minute of this model, per client. */
        readonly tokensPerMinute: number;
      }
    >
  >;
  /**
   * The most answer tokens reserved at admission (a request's `max_tokens`, capped by this; one without it reserves
   * this), beside the prompt's estimate. Default `RATE_LIMIT_DEFAULTS.reserveOutputTokens` (1024).
   */
  readonly reserveOutputTokens?: number;
  /** The weights of input, cached input and output tokens in the token limits and budgets. Default: 1 each. */
  readonly tokenWeights?: RateLimitTokenWeights;
  /** Told at the end of each request under token limits: what it reserved and was charged (estimated or not). */
  readonly onSettle?: (event: RateLimitSettleEvent) => void;
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
