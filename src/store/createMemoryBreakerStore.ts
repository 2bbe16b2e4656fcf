import type { BreakerStore, SharedBreakerState } from './BreakerStore.js';

/** How long a tripped breaker no probe has decided is remembered past its cool-down, in ms (then it reads closed). */
export const BREAKER_TRIP_MEMORY_MS = 600_000;

/** One breaker's entries in {@link createMemoryBreakerStore}: each an expiry (epoch ms of the store's clock). */
interface Entry {
  openUntil: number;
  trippedUntil: number;
  probeUntil: number;
}

/**
 * The in-memory {@link BreakerStore}: the processes of one store object (one process; for tests, or a single
 * instance). The same semantics as the Redis store: a trip opens the breaker for its cool-down and leaves it half-open
 * until a probe decides (remembered `BREAKER_TRIP_MEMORY_MS` past the cool-down), one probe claim at a time with its
 * TTL. Memory: one entry per breaker name (the routes' targets: configuration, not client input), dropped once closed.
 *
 * @param now - The clock (default `Date.now`).
 * @returns The store.
 */
export function createMemoryBreakerStore(now: () => number = Date.now): BreakerStore {
  const entries = new Map<string, Entry>();
  const entry = (name: string): Entry | undefined => {
    const found = entries.get(name);
    if (found !== undefined && found.trippedUntil <= now() && found.probeUntil <= now()) entries.delete(name);
    return entries.get(name);
  };
  return {
    scope: 'local',
    trip: async (name, coolDownMs) => {
      const at = now();
      entries.set(name, { openUntil: at + coolDownMs, trippedUntil: at + coolDownMs + BREAKER_TRIP_MEMORY_MS, probeUntil: 0 });
    },
    claimProbe: async (name, ttlMs) => {
      const found = entry(name);
      if (found === undefined || found.openUntil > now() || found.probeUntil > now()) return false;
      found.probeUntil = now() + ttlMs;
      return true;
    },
    reset: async (name) => void entries.delete(name),
    releaseProbe: async (name) => {
      const found = entry(name);
      if (found !== undefined) found.probeUntil = 0;
    },
    read: async (names) =>
      names.map((name): SharedBreakerState => {
        const found = entry(name);
        const at = now();
        return {
          openMs: Math.max(0, (found?.openUntil ?? 0) - at),
          tripped: found !== undefined && found.trippedUntil > at,
          probing: found !== undefined && found.probeUntil > at,
        };
      }),
    close: async () => entries.clear(),
  };
}
