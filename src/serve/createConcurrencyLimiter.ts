import { ConfigError } from '../core/errors.js';

/** Options of {@link createConcurrencyLimiter}. */
export interface ConcurrencyLimiterConfig {
  /** The most requests one client (one key) may have running at once; `0` or `Infinity`: no limit. */
  maxPerClient: number;
}

/** Counts the requests each client has running; see {@link createConcurrencyLimiter}. */
export interface ConcurrencyLimiter {
  /**
   * Takes a place for `client`: returns its release (call it once the response has ended; later calls do nothing),
   * or `undefined` when `client` already has `maxPerClient` requests running.
   */
  tryAcquire(client: string): (() => void) | undefined;
  /** The requests `client` has running now. */
  running(client: string): number;
  /** The clients with at least one request running (its memory: entries leave at their last release). */
  readonly clients: number;
}

/**
 * Creates a per-client concurrency limit, independent of any framework: the serving core asks it before it serves a
 * request, keyed by whatever identifies a client (its API key, else its remote address — see `clientKeyOf`), and
 * releases the place when the response ends. A refused request is answered at once
 * (`CapacityError('concurrency_limit')`: a 429 with `Retry-After`), so one client cannot take every upstream
 * connection and starve the others. Memory is one entry per client with requests running.
 *
 * ## Example
 * ```ts
 * const limiter = createConcurrencyLimiter({ maxPerClient: 16 });
 * const release = limiter.tryAcquire(clientKeyOf(req));
 * if (release === undefined) return refuse(new CapacityError('concurrency_limit', 'too many requests running'));
 * res.once('close', release);
 * ```
 *
 * @param config - The limit per client.
 * @returns The limiter.
 * @throws ConfigError when `maxPerClient` is not a non-negative integer (or `Infinity`).
 */
export function createConcurrencyLimiter(config: ConcurrencyLimiterConfig): ConcurrencyLimiter {
  const { maxPerClient } = config;
  if (!(maxPerClient >= 0) || (maxPerClient !== Infinity && !Number.isInteger(maxPerClient))) {
    throw new ConfigError(
      `createConcurrencyLimiter: \`maxPerClient\` must be a non-negative integer (0 or Infinity: no limit), got ${String(maxPerClient)}.`,
    );
  }
  const unlimited = maxPerClient === 0 || maxPerClient === Infinity;
  const counts = new Map<string, number>();
  return {
    tryAcquire(client) {
      const count = counts.get(client) ?? 0;
      if (!unlimited && count >= maxPerClient) return undefined;
      counts.set(client, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(client) ?? 1) - 1;
        if (left <= 0) counts.delete(client);
        else counts.set(client, left);
      };
    },
    running: (client) => counts.get(client) ?? 0,
    get clients() {
      return counts.size;
    },
  };
}
