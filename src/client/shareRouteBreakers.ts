import type { ChatRouteConfig } from './ChatRouteConfig.js';
import type { RouteTarget } from './RouteTarget.js';
import type { SharedCircuitBreaker } from './shareCircuitBreaker.js';

/** How often a route reads its shared breakers' states from the store, ms (how soon an open breaker is seen elsewhere). */
export const BREAKER_SYNC_MS = 250;

/** A route's side of its shared breakers (see {@link shareRouteBreakers}). */
export interface RouteBreakerSharing {
  /** Told of a store call that failed: the breakers decide alone until the next read that succeeds (said once). */
  failed(error: unknown): void;
  /** Starts reading the targets' shared states (at once, then every `BREAKER_SYNC_MS`; the timer keeps no process alive). */
  start(targets: readonly RouteTarget[]): void;
  /** The shared breakers that read `half_open` now (their probe is claimed before a call). */
  halfOpen(): SharedCircuitBreaker[];
  /** Stops reading. */
  stop(): void;
}

/**
 * A route's shared breakers (`ChatRouteConfig.breakerStore`): one read of every target's state per period (one round
 * trip), each applied to its breaker; a failed read or call makes every breaker decide alone until a read succeeds,
 * told once per outage (`onBreakerStoreError`, default a process warning). Without a store: nothing.
 *
 * @param config - The route's options (`breakerStore`, `onBreakerStoreError`).
 * @returns The sharing.
 */
export function shareRouteBreakers(config: ChatRouteConfig): RouteBreakerSharing {
  const store = config.breakerStore;
  const tell =
    config.onBreakerStoreError ??
    ((event): void => process.emitWarning(`chatflux routes: the circuit breaker store is ${event.state}${event.state === 'failing' ? '; each process runs its own breakers meanwhile' : ''}`, { code: 'CHATFLUX_BREAKER_STORE' }));
  let shared: SharedCircuitBreaker[] = [];
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  let reading = false;
  const failed = (error: unknown): void => {
    for (const breaker of shared) breaker.apply(undefined);
    if (failing) return;
    failing = true;
    tell({ state: 'failing', error });
  };
  const read = async (): Promise<void> => {
    if (store === undefined || reading) return;
    reading = true;
    try {
      const readAt = performance.now();
      const states = await store.read(shared.map((breaker) => breaker.name));
      shared.forEach((breaker, i) => breaker.apply(states[i], readAt));
      if (failing) {
        failing = false;
        tell({ state: 'recovered' });
      }
    } catch (error) {
      failed(error);
    } finally {
      reading = false;
    }
  };
  return {
    failed,
    start: (targets) => {
      if (store === undefined) return;
      shared = targets.flatMap((target) => (target.breaker === undefined ? [] : [target.breaker as SharedCircuitBreaker]));
      if (shared.length === 0) return;
      void read();
      timer = setInterval(() => void read(), BREAKER_SYNC_MS).unref();
    },
    halfOpen: () => shared.filter((breaker) => breaker.state === 'half_open'),
    stop: () => clearInterval(timer),
  };
}
