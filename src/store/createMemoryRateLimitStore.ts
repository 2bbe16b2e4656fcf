import { budgetPeriods } from './budgetPeriods.js';
import { CONCURRENCY_RETRY_MS } from './CONCURRENCY_RETRY_MS.js';
import { gcra } from './gcra.js';
import { gcraSettle } from './gcraSettle.js';
import { gcraTokens } from './gcraTokens.js';
import type { RateLimitDecision, RateLimitQuotaLeft, RateLimitRule, RateLimitStore } from './RateLimitStore.js';

/** The in-memory {@link RateLimitStore}: see {@link createMemoryRateLimitStore}. */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** The keys it holds state of now (a quota being refilled, a place held, a reservation or a budget used). */
  readonly size: number;
}

/** How often every key is looked at, and those idle dropped, in ms of the store's clock. */
const SWEEP_EVERY_MS = 10_000;
const PERIOD_MS = 60_000;

/** A key's state in {@link createMemoryRateLimitStore}. */
interface KeyState {
  tat: number | undefined;
  /** The tokens-per-minute GCRA's theoretical arrival time. */
  tokens: number | undefined;
  /** Model → its tokens-per-minute GCRA's theoretical arrival time. */
  readonly models: Map<string, number>;
  /** Place id → its expiry (ms). */
  readonly places: Map<string, number>;
  /** Reservation id → its tokens and its expiry (ms). */
  readonly reservations: Map<string, { readonly tokens: number; expiry: number }>;
  /**
   * Place id → what its admission took (its reserved tokens, 0 when not weighed) and when this record expires (its
   * place's TTL): for `abort`, dropped by the release or the settlement.
   */
  readonly admitted: Map<string, { readonly tokens: number; readonly expiry: number }>;
  /** The budgets used: the day and month they count, and the tokens of each. */
  budget: { day: number; dayUsed: number; month: number; monthUsed: number } | undefined;
}

/** Tokens charged in `state`'s budget now (a new day or month starts from 0). */
const charge = (state: KeyState, now: number, tokens: number): void => {
  const { day, month } = budgetPeriods(now);
  const used = state.budget;
  state.budget = {
    day,
    dayUsed: (used?.day === day ? used.dayUsed : 0) + tokens,
    month,
    monthUsed: (used?.month === month ? used.monthUsed : 0) + tokens,
  };
};

/** Whether a rule has a token limit or a budget. */
const weighs = (rule: RateLimitRule): boolean =>
  rule.tokensPerMinute !== undefined || rule.modelTokensPerMinute !== undefined || rule.tokensPerDay !== undefined || rule.tokensPerMonth !== undefined;

/**
 * The in-memory {@link RateLimitStore}: one process. The same decisions as the Redis store (`gcra`, weighted for the
 * tokens; places and token reservations with an expiry; budgets per UTC day and month), for a single process or as the
 * local fallback of a shared store. Memory: one entry per key with a quota being refilled, a place or reservation
 * held, or a budget used this month; an entry leaves once all are idle.
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
  /** Drops what expired (places; reservations, charged at their estimate); returns how many reservations expired. */
  const prune = (key: string, state: KeyState, now: number): number => {
    for (const [id, expiry] of state.places) if (expiry <= now) state.places.delete(id);
    let expired = 0;
    for (const [id, { tokens, expiry }] of state.reservations) {
      if (expiry > now) continue;
      state.reservations.delete(id);
      charge(state, now, tokens);
      expired++;
    }
    for (const [model, tat] of state.models) if (tat <= now) state.models.delete(model);
    for (const [id, { expiry }] of state.admitted) if (expiry <= now) state.admitted.delete(id);
    if (state.tokens !== undefined && state.tokens <= now) state.tokens = undefined;
    const { month } = budgetPeriods(now);
    if (state.budget !== undefined && state.budget.month !== month) state.budget = undefined;
    const idle = state.places.size === 0 && state.reservations.size === 0 && state.models.size === 0 && state.tokens === undefined && state.budget === undefined;
    if (idle && (state.tat === undefined || state.tat <= now)) keys.delete(key);
    return expired;
  };
  const fresh = (): KeyState => ({ tat: undefined, tokens: undefined, models: new Map(), places: new Map(), reservations: new Map(), admitted: new Map(), budget: undefined });
  const least = (a: RateLimitQuotaLeft | undefined, b: RateLimitQuotaLeft | undefined): RateLimitQuotaLeft | undefined =>
    a === undefined ? b : b === undefined ? a : { remaining: Math.min(a.remaining, b.remaining), resetMs: Math.max(a.resetMs, b.resetMs) };
  return {
    scope: 'local',
    get size() {
      return keys.size;
    },
    admit: ({ key, rule, placeId, placeTtlMs, tokens: cost, model }) => {
      const now = clock();
      if (now - swept >= SWEEP_EVERY_MS) {
        swept = now;
        for (const [other, state] of keys) prune(other, state, now);
      }
      let state = keys.get(key);
      const expired = state === undefined ? 0 : prune(key, state, now);
      state = keys.get(key) ?? state ?? fresh();
      keys.set(key, state); // kept while deciding (a swept budget must stay); dropped below when idle
      const extra = expired > 0 ? { expiredReservations: expired } : {};
      const done = (decision: RateLimitDecision): Promise<RateLimitDecision> => {
        prune(key, state, now);
        return Promise.resolve(decision);
      };
      const { requestsPerMinute: rate, maxConcurrent: max } = rule;
      const concurrency = max === undefined ? undefined : { remaining: Math.max(0, max - state.places.size - 1) };
      if (max !== undefined && state.places.size >= max) {
        // when a place frees is not known: one second, as the per-process limit always said
        return done({ allowed: false, refusedBy: 'concurrency', concurrency: { remaining: 0 }, retryAfterMs: CONCURRENCY_RETRY_MS, ...extra });
      }
      const keep = max === undefined ? {} : { concurrency: { remaining: max - state.places.size } };
      const decided = rate === undefined ? undefined : gcra(state.tat, now, rate, PERIOD_MS);
      const requests = decided === undefined ? undefined : { remaining: decided.remaining, resetMs: decided.resetMs };
      if (decided !== undefined && !decided.allowed) {
        return done({ allowed: false, refusedBy: 'requests', requests, ...keep, retryAfterMs: decided.retryAfterMs, ...extra });
      }
      const weighed = cost !== undefined && weighs(rule);
      const perKey = weighed && rule.tokensPerMinute !== undefined ? gcraTokens(state.tokens, now, rule.tokensPerMinute, PERIOD_MS, cost) : undefined;
      const modelTat = model === undefined ? undefined : state.models.get(model);
      const perModel = weighed && model !== undefined && rule.modelTokensPerMinute !== undefined ? gcraTokens(modelTat, now, rule.modelTokensPerMinute, PERIOD_MS, cost) : undefined;
      const tokensLeft = least(
        perKey === undefined ? undefined : { remaining: perKey.remaining, resetMs: perKey.resetMs },
        perModel === undefined ? undefined : { remaining: perModel.remaining, resetMs: perModel.resetMs },
      );
      const withRequests = requests === undefined ? {} : { requests };
      for (const refused of [perKey, perModel]) {
        if (refused !== undefined && !refused.allowed) {
          return done({ allowed: false, refusedBy: 'tokens', ...withRequests, ...keep, ...(tokensLeft === undefined ? {} : { tokens: tokensLeft }), retryAfterMs: refused.retryAfterMs, ...extra });
        }
      }
      let budget: RateLimitQuotaLeft | undefined;
      if (weighed && (rule.tokensPerDay !== undefined || rule.tokensPerMonth !== undefined)) {
        const periods = budgetPeriods(now);
        const used = state.budget;
        let held = 0;
        for (const reservation of state.reservations.values()) held += reservation.tokens;
        const quotas = [
          { limit: rule.tokensPerDay, used: used?.day === periods.day ? used.dayUsed : 0, end: periods.dayEnd },
          { limit: rule.tokensPerMonth, used: used?.month === periods.month ? used.monthUsed : 0, end: periods.monthEnd },
        ];
        for (const { limit, used: spent, end } of quotas) {
          if (limit === undefined) continue;
          const left = { remaining: Math.max(0, limit - spent - held - cost), resetMs: end - now };
          if (spent + held + cost > limit) {
            const tokensOut = tokensLeft === undefined ? {} : { tokens: tokensLeft };
            return done({ allowed: false, refusedBy: 'budget', ...withRequests, ...keep, ...tokensOut, budget: { remaining: Math.max(0, limit - spent - held), resetMs: end - now }, retryAfterMs: end - now, ...extra });
          }
          budget = least(budget, left);
        }
        state.reservations.set(placeId, { tokens: cost, expiry: now + placeTtlMs });
      }
      if (decided !== undefined) state.tat = decided.tat;
      if (perKey !== undefined) state.tokens = perKey.tat;
      if (perModel !== undefined && model !== undefined) state.models.set(model, perModel.tat);
      if (max !== undefined) state.places.set(placeId, now + placeTtlMs);
      state.admitted.set(placeId, { tokens: weighed ? cost : 0, expiry: now + placeTtlMs });
      return done({
        allowed: true,
        ...withRequests,
        ...(concurrency === undefined ? {} : { concurrency }),
        ...(tokensLeft === undefined ? {} : { tokens: tokensLeft }),
        ...(budget === undefined ? {} : { budget }),
        retryAfterMs: 0,
        ...extra,
      });
    },
    settle: ({ key, rule, placeId, model, reserved, used }) => {
      const now = clock();
      const state = keys.get(key) ?? fresh();
      keys.set(key, state);
      state.places.delete(placeId);
      state.admitted.delete(placeId);
      const delta = used - reserved;
      if (rule.tokensPerMinute !== undefined) state.tokens = gcraSettle(state.tokens, now, rule.tokensPerMinute, PERIOD_MS, delta);
      if (model !== undefined && rule.modelTokensPerMinute !== undefined) state.models.set(model, gcraSettle(state.models.get(model), now, rule.modelTokensPerMinute, PERIOD_MS, delta));
      if (rule.tokensPerDay !== undefined || rule.tokensPerMonth !== undefined) {
        // a reservation still held is replaced by what was used; one swept (charged at its estimate) is corrected
        const held = state.reservations.delete(placeId);
        charge(state, now, held ? used : delta);
      }
      prune(key, state, now);
      return Promise.resolve();
    },
    renew: (key, placeId, ttlMs) => {
      const state = keys.get(key);
      const expiry = clock() + ttlMs;
      if (state?.places.has(placeId) === true) state.places.set(placeId, expiry);
      const reservation = state?.reservations.get(placeId);
      if (reservation !== undefined) reservation.expiry = expiry;
      return Promise.resolve();
    },
    release: (key, placeId) => {
      const state = keys.get(key);
      if (state !== undefined) {
        state.places.delete(placeId);
        state.admitted.delete(placeId);
        prune(key, state, clock());
      }
      return Promise.resolve();
    },
    abort: ({ key, rule, placeId, model }) => {
      // Its caller stopped waiting for `admit` (a worker asking over IPC): undone if admitted, as the Redis store does.
      const state = keys.get(key);
      const took = state?.admitted.get(placeId);
      if (state === undefined || took === undefined) return Promise.resolve(); // refused, never run, settled, or undone
      const now = clock();
      state.admitted.delete(placeId);
      state.places.delete(placeId);
      state.reservations.delete(placeId);
      if (rule.requestsPerMinute !== undefined) state.tat = gcraSettle(state.tat, now, rule.requestsPerMinute, PERIOD_MS, -1);
      if (took.tokens > 0 && rule.tokensPerMinute !== undefined) state.tokens = gcraSettle(state.tokens, now, rule.tokensPerMinute, PERIOD_MS, -took.tokens);
      const modelTat = model === undefined ? undefined : state.models.get(model);
      if (took.tokens > 0 && model !== undefined && rule.modelTokensPerMinute !== undefined && modelTat !== undefined) {
        state.models.set(model, gcraSettle(modelTat, now, rule.modelTokensPerMinute, PERIOD_MS, -took.tokens));
      }
      prune(key, state, now);
      return Promise.resolve();
    },
    close: () => {
      keys.clear();
      return Promise.resolve();
    },
  };
}
