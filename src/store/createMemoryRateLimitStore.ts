import { CONCURRENCY_RETRY_MS } from './CONCURRENCY_RETRY_MS.js';
import { gcra } from './gcra.js';
import type { RateLimitDecision, RateLimitStore } from './RateLimitStore.js';

/** The in-memory {@link RateLimitStore}: see {@link createMemoryRateLimitStore}. */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** The keys it holds state of now (a quota being refilled, or a place held). */
  readonly size: number;
}

/** How often every key is looked at, and those idle dropped, in ms of the store's clock. */
const SWEEP_EVERY_MS = 10_000;

/** A key's state in {@link createMemoryRateLimitStore}. */
interface KeyState {
  tat: number | undefined;
  /** Place id → its expiry (ms). */
  readonly places: Map<string, number>;
}

/**
 * The in-memory {@link RateLimitStore}: one process. The same decisions as the Redis store (`gcra`, places with an
 * expiry), for a single process or as the local fallback of a shared store. Memory: one entry per key with a quota
 * being refilled or a place held; an entry leaves once both are idle.
 *
 * ```ts
 * const store = createMemoryRateLimitStore();
 * const decision = await store.admit({ key: 'key:abc', rule: { requestsPerMinute: 60, maxConcurrent: 2 }, placeId, placeTtlMs: 30_000 });
 * ```
 *
 * @param clock - The clock in ms (tests); default `Date.now`.
 * @returns The store.
 */
export function createMemoryRateLimitStore(clock: () => number = Date.now): MemoryRateLimitStore {
  const keys = new Map<string, KeyState>();
  let swept = clock();
  const prune = (key: string, state: KeyState, now: number): void => {
    for (const [id, expiry] of state.places) if (expiry <= now) state.places.delete(id);
    if (state.places.size === 0 && (state.tat === undefined || state.tat <= now)) keys.delete(key);
  };
  return {
    scope: 'local',
    get size() {
      return keys.size;
    },
    admit: ({ key, rule, placeId, placeTtlMs }) => {
      const now = clock();
      if (now - swept >= SWEEP_EVERY_MS) {
        swept = now;
        for (const [other, state] of keys) prune(other, state, now);
      }
      let state = keys.get(key);
      if (state !== undefined) prune(key, state, now);
      state = keys.get(key) ?? { tat: undefined, places: new Map() };
      const { requestsPerMinute: rate, maxConcurrent: max } = rule;
      const concurrency = max === undefined ? undefined : { remaining: Math.max(0, max - state.places.size - 1) };
      if (max !== undefined && state.places.size >= max) {
        // when a place frees is not known: one second, as the per-process limit always said
        return Promise.resolve<RateLimitDecision>({ allowed: false, refusedBy: 'concurrency', concurrency: { remaining: 0 }, retryAfterMs: CONCURRENCY_RETRY_MS });
      }
      const decided = rate === undefined ? undefined : gcra(state.tat, now, rate, 60_000);
      const requests = decided === undefined ? undefined : { remaining: decided.remaining, resetMs: decided.resetMs };
      if (decided !== undefined && !decided.allowed) {
        return Promise.resolve<RateLimitDecision>({ allowed: false, refusedBy: 'requests', requests, ...(max === undefined ? {} : { concurrency: { remaining: max - state.places.size } }), retryAfterMs: decided.retryAfterMs });
      }
      if (decided !== undefined) state.tat = decided.tat;
      if (max !== undefined) state.places.set(placeId, now + placeTtlMs);
      if (state.places.size > 0 || (state.tat !== undefined && state.tat > now)) keys.set(key, state);
      return Promise.resolve<RateLimitDecision>({ allowed: true, ...(requests === undefined ? {} : { requests }), ...(concurrency === undefined ? {} : { concurrency }), retryAfterMs: 0 });
    },
    renew: (key, placeId, ttlMs) => {
      const places = keys.get(key)?.places;
      if (places?.has(placeId) === true) places.set(placeId, clock() + ttlMs);
      return Promise.resolve();
    },
    release: (key, placeId) => {
      const state = keys.get(key);
      if (state !== undefined) {
        state.places.delete(placeId);
        prune(key, state, clock());
      }
      return Promise.resolve();
    },
    close: () => {
      keys.clear();
      return Promise.resolve();
    },
  };
}
