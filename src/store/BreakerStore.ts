/** What a {@link BreakerStore} holds of one circuit breaker, as read now. */
export interface SharedBreakerState {
  /** How long the breaker stays open, in ms from the read (`0`: not open: closed, or half-open once tripped). */
  readonly openMs: number;
  /** Opened, and no probe has closed it since: past its cool-down it is half-open (one probe decides). */
  readonly tripped: boolean;
  /** A process holds the half-open probe (claimed, not settled, its claim not expired). */
  readonly probing: boolean;
}

/**
 * The port of shared circuit breakers (`ChatRouteConfig.breakerStore`): an open breaker and its half-open probe hold
 * for every process that shares the store, with TTLs (a process that dies holding the probe frees it when its claim
 * expires). Each state change is one round trip: `trip` (opened, or a probe failed), `claimProbe` (a `SET NX PX`:
 * exactly one claimant wins), `reset` (the probe succeeded: closed for all), `releaseProbe`; the routes read their
 * breakers' states together (`read`, one round trip per route and period). `createMemoryBreakerStore` holds them in
 * this process; `createRedisBreakerStore` (`chatflux/redis`) shares them between instances. A store that cannot
 * answer rejects, and each process then runs its own breakers (told, never silently).
 */
export interface BreakerStore {
  /** Opens `name` for everyone for `coolDownMs`; then it is half-open until a probe decides (a claim held is freed). */
  trip(name: string, coolDownMs: number): Promise<void>;
  /** Claims `name`'s half-open probe for `ttlMs`: `true` for exactly one claimant until it settles or the claim expires. */
  claimProbe(name: string, ttlMs: number): Promise<boolean>;
  /** The probe succeeded: `name` is closed for everyone. */
  reset(name: string): Promise<void>;
  /** The probe ended deciding nothing (aborted, the request's own fault): another may claim it. */
  releaseProbe(name: string): Promise<void>;
  /** The states of `names`, in order, in one round trip. */
  read(names: readonly string[]): Promise<SharedBreakerState[]>;
  /** Whether the store shares its breakers between processes (`'shared'`) or only this one's (`'local'`). */
  readonly scope: 'shared' | 'local';
  /** Frees its connections and timers. */
  close(): Promise<void>;
}
