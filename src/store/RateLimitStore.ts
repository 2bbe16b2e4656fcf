/** The limits of one client key, each optional (absent: not limited). */
export interface RateLimitRule {
  /** Requests admitted per minute (GCRA: evenly refilled, at most this many at once). */
  readonly requestsPerMinute?: number;
  /** Requests running at once. */
  readonly maxConcurrent?: number;
}

/** One admission asked of a {@link RateLimitStore}. */
export interface RateLimitAdmission {
  /** The client key (bounded: the serving core hashes what it does not bound itself). */
  readonly key: string;
  /** The limits to apply. */
  readonly rule: RateLimitRule;
  /** The id of the place to take when `rule.maxConcurrent` is set (unique per request). */
  readonly placeId: string;
  /** How long the place lasts without renewal, in ms: a process that dies holding it frees it after this long. */
  readonly placeTtlMs: number;
}

/** What a {@link RateLimitStore} decided: admitted or not, and what the client is told in its headers. */
export interface RateLimitDecision {
  /** Whether the request is admitted (it then holds a place, when `maxConcurrent` is set). */
  readonly allowed: boolean;
  /** Which limit refused it, when refused. */
  readonly refusedBy?: 'requests' | 'concurrency';
  /** With `requestsPerMinute`: the requests still admissible now, and how long until the whole quota is back (ms). */
  readonly requests?: {
    /** The requests still admissible now. */
    readonly remaining: number;
    /** How long until the whole quota is back, ms. */
    readonly resetMs: number;
  };
  /** With `maxConcurrent`: the places still free after this decision. */
  readonly concurrency?: {
    /** The places still free after this decision. */
    readonly remaining: number;
  };
  /** When refused: how long until a retry may be admitted, in ms. */
  readonly retryAfterMs: number;
}

/**
 * The port of the per-key limits (requests per minute, requests running at once): one decision per admission, one
 * release per response's end. `createMemoryRateLimitStore` holds them in this process; `createRedisRateLimitStore`
 * (`chatflux/redis`) shares them between processes and instances (one Lua script per decision, on Redis's clock). A
 * store that cannot decide (unreachable) rejects, and the serving core applies its failure policy
 * (`RateLimitsConfig.onStoreFailure`).
 */
export interface RateLimitStore {
  /**
   * Decides one admission: the concurrency first (expired places dropped), then the rate; both are charged only when
   * both admit.
   *
   * @throws Error when the store cannot decide now (unreachable, timed out).
   */
  admit(admission: RateLimitAdmission): Promise<RateLimitDecision>;
  /** Extends a held place by `ttlMs` (a long stream keeps its place). Rejects when the store is unreachable. */
  renew(key: string, placeId: string, ttlMs: number): Promise<void>;
  /** Frees a place (the response ended). Rejects when the store is unreachable (the place then expires). */
  release(key: string, placeId: string): Promise<void>;
  /** Whether the store shares its decisions between processes (`'shared'`) or only this one's (`'local'`). */
  readonly scope: 'shared' | 'local';
  /** Frees its connections and timers. */
  close(): Promise<void>;
}
