import type { BreakerStore, SharedBreakerState } from '../store/BreakerStore.js';
import type { CircuitBreaker, CircuitState, CircuitTransition } from './createCircuitBreaker.js';

/** A route target's breaker shared through a {@link BreakerStore} (see {@link shareCircuitBreaker}). */
export interface SharedCircuitBreaker extends CircuitBreaker {
  /** The store's name of this breaker. */
  readonly name: string;
  /**
   * When it reads `half_open`: claims the shared probe (one round trip; lost, it reads `open`: another process
   * probes). Resolves at once otherwise. Never rejects: a store that fails makes it this process's breaker.
   */
  prepare(): Promise<void>;
  /**
   * Takes the store's state (the route's periodic read), or `undefined`: the store failed, this process's breaker
   * decides. A read that started (`readAt`, `performance.now()`) before this breaker's latest write settled, or while
   * one is under way, is stale for it and left out.
   */
  apply(state: SharedBreakerState | undefined, readAt?: number): void;
}

/** What {@link shareCircuitBreaker} needs besides the breaker. */
export interface ShareCircuitBreakerLink {
  /** The store. */
  store: BreakerStore;
  /** The breaker's name in the store (route and target). */
  name: string;
  /** The breaker's cool-down, ms (what a trip holds it open for). */
  coolDownMs: number;
  /** How long a probe's claim holds (a prober that dies frees it then), ms. */
  probeTtlMs: number;
  /** Told of a store call that failed (the route says it once per outage). */
  failed(error: unknown): void;
  /** Told of each state change of the shared breaker (as the breaker's own `onTransition`). */
  onTransition?: (transition: CircuitTransition) => void;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/**
 * Shares a route target's circuit breaker through a store: this process's breaker counts its own outcomes, and when
 * it opens the store is told (`trip`): the breaker is then open for every process sharing the store, which learn it
 * at their next read of the store (the route's, every `BREAKER_SYNC_MS`). Past the cool-down it is half-open
 * everywhere, and one probe decides for all: the process that claims it (`prepare`, a `SET NX PX`) sends it, the
 * others read `open` until it settles — its success closes the breaker for all (`reset`), its failure opens it again
 * (`trip`). While the store does not answer (`apply(undefined)`, a failed call) this process's breaker decides
 * alone, as without a store.
 *
 * @param local - This process's breaker (`createCircuitBreaker`, without its own `onTransition`).
 * @param link - The store, the breaker's name and cool-down, the probe's TTL, where failures and transitions go.
 * @returns The shared breaker.
 */
export function shareCircuitBreaker(local: CircuitBreaker, link: ShareCircuitBreakerLink): SharedCircuitBreaker {
  const now = link.now ?? Date.now;
  /** The store's state as last read (with `openUntil` on this clock), or `undefined`: unknown, or the store failed. */
  let remote: { openUntil: number; tripped: boolean; probing: boolean } | undefined;
  let claimed = false; // this process holds the probe's claim
  let claimedAt = -Infinity; // when it won it (performance.now())
  let probing = false; // and has let its probe through
  let claiming: Promise<void> | undefined;
  let last: CircuitState = 'closed';

  const derived = (): CircuitState => {
    if (remote === undefined) return local.state;
    if (remote.openUntil > now()) return 'open';
    if (!remote.tripped) return 'closed';
    if (claimed) return probing ? 'open' : 'half_open'; // one probe: the next request is it
    return remote.probing ? 'open' : 'half_open';
  };
  const observe = (): CircuitState => {
    const state = derived();
    if (state !== last) {
      const from = last;
      last = state;
      link.onTransition?.({ from, to: state });
    }
    return state;
  };
  let writing = 0; // writes under way
  let wroteAt = -Infinity; // when the latest settled (performance.now())
  const call = (work: () => Promise<unknown>): void => {
    writing++;
    void work()
      .catch((error: unknown) => {
        remote = undefined;
        link.failed(error);
      })
      .finally(() => {
        writing--;
        wroteAt = performance.now();
      });
  };
  const trip = (): void => {
    claimed = probing = false;
    if (remote !== undefined) remote = { openUntil: now() + link.coolDownMs, tripped: true, probing: false };
    call(() => link.store.trip(link.name, link.coolDownMs));
  };
  return {
    name: link.name,
    get state() {
      return observe();
    },
    get retryAt() {
      if (remote === undefined) return local.retryAt;
      return observe() === 'open' ? Math.max(remote.openUntil, now() + (remote.probing || probing ? 1000 : 0)) : undefined;
    },
    tryAcquire() {
      if (remote === undefined) return local.tryAcquire();
      const state = observe();
      if (state === 'closed') return true;
      if (state === 'open' || !claimed) return false;
      probing = true;
      observe();
      return true;
    },
    success() {
      local.success();
      if (probing) {
        claimed = probing = false;
        if (remote !== undefined) remote = { openUntil: 0, tripped: false, probing: false };
        call(() => link.store.reset(link.name));
      }
      observe();
    },
    failure(caller) {
      const wasProbe = probing;
      const before = local.state;
      local.failure(caller);
      // The probe failed (for all: open again), or this process's outcomes opened its breaker (open for all).
      if (wasProbe || (before !== 'open' && local.state === 'open')) trip();
      observe();
    },
    release() {
      if (probing) {
        claimed = probing = false;
        call(() => link.store.releaseProbe(link.name));
      } else local.release();
      observe();
    },
    prepare() {
      if (remote === undefined || claimed || derived() !== 'half_open') return Promise.resolve();
      claiming ??= link.store
        .claimProbe(link.name, link.probeTtlMs)
        .then(
          (won) => {
            if (won) {
              claimed = true;
              claimedAt = performance.now();
            }
            else if (remote !== undefined) remote = { ...remote, probing: true };
          },
          (error: unknown) => {
            remote = undefined;
            link.failed(error);
          },
        )
        .finally(() => {
          claiming = undefined;
          observe();
        });
      return claiming;
    },
    apply(state, readAt) {
      if (state === undefined) remote = undefined;
      else if (writing > 0 || (readAt !== undefined && readAt <= wroteAt)) {
        // stale: read before this process's own latest change reached the store
      } else {
        remote = { openUntil: now() + state.openMs, tripped: state.tripped, probing: state.probing };
        // A claim this process did not use is gone from the store (expired, or a trip since): another may claim now.
        if (claimed && !probing && !state.probing && (readAt === undefined || readAt > claimedAt)) claimed = false;
        // A probe elsewhere closed it: this process's breaker forgets its own failures too.
        if (!state.tripped && !probing) {
          claimed = false;
          if (local.state === 'half_open') local.success();
        }
      }
      observe();
    },
  };
}
