/** The limits of one client key, each optional (absent: not limited). */
export interface RateLimitRule {
  /** Requests admitted per minute (GCRA: evenly refilled, at most this many at once). */
  readonly requestsPerMinute?: number;
  /** Requests running at once. */
  readonly maxConcurrent?: number;
  /** Weighted tokens per minute (GCRA weighted by each request's tokens: reserved at admission, settled at its end). */
  readonly tokensPerMinute?: number;
  /** Weighted tokens per minute of the admission's `model` (a second GCRA, per key and model). */
  readonly modelTokensPerMinute?: number;
  /** Weighted tokens per UTC day (a budget: running reservations count; whole again at the day's end). */
  readonly tokensPerDay?: number;
  /** Weighted tokens per UTC month (a budget, as `tokensPerDay`). */
  readonly tokensPerMonth?: number;
}

/** One admission asked of a {@link RateLimitStore}. */
export interface RateLimitAdmission {
  /** The client key (bounded: the serving core hashes what it does not bound itself). */
  readonly key: string;
  /** The limits to apply. */
  readonly rule: RateLimitRule;
  /** The id of the place to take when `rule.maxConcurrent` is set (unique per request). */
  readonly placeId: string;
  /**
   * How long the place (and the token reservation) lasts without renewal, in ms: a process that dies holding it frees
   * the place after this long, and its reservation is then charged at its estimate.
   */
  readonly placeTtlMs: number;
  /** The tokens to reserve (the estimate: prompt + the answer's cap), with token limits; absent: none are checked. */
  readonly tokens?: number;
  /** The model asked for (with `rule.modelTokensPerMinute`): its own GCRA. Bounded by the caller. */
  readonly model?: string;
}

/** One settlement asked of a {@link RateLimitStore}: what an admitted request really used. */
export interface RateLimitSettlement {
  /** The client key. */
  readonly key: string;
  /** The limits it was admitted under. */
  readonly rule: RateLimitRule;
  /** Its place id (the reservation's id): the place is freed, the reservation closed. */
  readonly placeId: string;
  /** The model it was admitted with, if any. */
  readonly model?: string;
  /** The tokens reserved at admission. */
  readonly reserved: number;
  /** The tokens used (the upstream's usage, or the estimate of what was emitted), weighted. */
  readonly used: number;
}

/** What a quota has left (in a {@link RateLimitDecision}). */
export interface RateLimitQuotaLeft {
  /** The units still admissible now. */
  readonly remaining: number;
  /** How long until the whole quota is back, ms. */
  readonly resetMs: number;
}

/** What a {@link RateLimitStore} decided: admitted or not, and what the client is told in its headers. */
export interface RateLimitDecision {
  /** Whether the request is admitted (it then holds a place, when `maxConcurrent` is set). */
  readonly allowed: boolean;
  /** Which limit refused it, when refused. */
  readonly refusedBy?: 'requests' | 'concurrency' | 'tokens' | 'budget';
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
  /** With token limits: the tokens per minute still admissible (the least of the key's and its model's). */
  readonly tokens?: RateLimitQuotaLeft;
  /** With a token budget: the tokens left of it (the least of the day's and the month's), and when it is whole. */
  readonly budget?: RateLimitQuotaLeft;
  /** Reservations of this key found expired (a dead process's) and charged at their estimate by this decision. */
  readonly expiredReservations?: number;
  /** When refused: how long until a retry may be admitted, in ms (a budget: until its period ends). */
  readonly retryAfterMs: number;
}

/**
 * The port of the per-key limits (requests per minute, requests running at once, weighted tokens per minute, token
 * budgets per day and month): one decision per admission, one release or settlement per response's end. `createMemoryRateLimitStore` holds them in this process; `createRedisRateLimitStore`
 * (`chatflux/redis`) shares them between processes and instances (one Lua script per decision, on Redis's clock). A
 * store that cannot decide (unreachable) rejects, and the serving core applies its failure policy
 * (`RateLimitsConfig.onStoreFailure`).
 */
export interface RateLimitStore {
  /**
   * Decides one admission: the concurrency first (expired places dropped), then the rate, then (with `tokens`) the
   * tokens per minute of the key and of its model, then the budgets (expired reservations charged at their estimate,
   * running ones counted); all are charged only when all admit.
   *
   * @throws Error when the store cannot decide now (unreachable, timed out).
   */
  admit(admission: RateLimitAdmission): Promise<RateLimitDecision>;
  /**
   * Settles an admitted request (one round trip): frees its place, charges the tokens it used instead of those
   * reserved (the GCRAs moved by the difference, the budgets charged what was used). Rejects when the store is
   * unreachable (the place then expires, and the reservation is charged at its estimate).
   */
  settle(settlement: RateLimitSettlement): Promise<void>;
  /**
   * Undoes an admission whose decision its caller did not get (`admit` rejected: timed out, while the store may still
   * have run it): if it was admitted, its place and its reservation are freed and its request and tokens given back;
   * else nothing (so it is safe twice, or for an admission never run). Optional: a store whose `admit` cannot reject
   * after deciding needs none (the memory store has it for its callers over a channel that times out: a gateway's
   * workers asking its primary over IPC). Rejects when the store is unreachable (the place then expires, and the
   * reservation is charged at its estimate).
   */
  abort?(admission: RateLimitAdmission): Promise<void>;
  /** Extends a held place and its reservation by `ttlMs` (a long stream keeps them). Rejects when the store is unreachable. */
  renew(key: string, placeId: string, ttlMs: number): Promise<void>;
  /** Frees a place (the response ended). Rejects when the store is unreachable (the place then expires). */
  release(key: string, placeId: string): Promise<void>;
  /** Whether the store shares its decisions between processes (`'shared'`) or only this one's (`'local'`). */
  readonly scope: 'shared' | 'local';
  /** Frees its connections and timers. */
  close(): Promise<void>;
}
