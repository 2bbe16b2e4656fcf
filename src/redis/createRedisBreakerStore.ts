import { createHash } from 'node:crypto';
import type { BreakerStore } from '../store/BreakerStore.js';
import { BREAKER_TRIP_MEMORY_MS } from '../store/createMemoryBreakerStore.js';
import { resolveRedisStoreConfig } from './resolveRedisStoreConfig.js';
import { connectRedis } from './connectRedis.js';
import type { RedisRateLimitStoreConfig } from './RedisRateLimitStoreConfig.js';

/**
 * Options of `createRedisBreakerStore`: where Redis is, the key prefix (keys `cf:br:{<hash of the name>}:open`,
 * `:trip`, `:probe`), the command timeout (default 250 ms: past it the routes run their own breakers until Redis
 * answers) and an error sink — the same fields as the rate-limit store's.
 */
export type RedisBreakerStoreConfig = RedisRateLimitStoreConfig;

/** The breaker scripts: each state change one round trip, on Redis's clock (PX TTLs). */
const SCRIPTS = {
  /** KEYS open, trip, probe; ARGV coolDownMs, tripMs. */
  trip: `redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) redis.call('SET', KEYS[2], '1', 'PX', ARGV[2]) redis.call('DEL', KEYS[3]) return 1`,
  /** KEYS open, trip, probe; ARGV ttlMs. Only past the cool-down of a tripped breaker; then SET NX PX: one winner. */
  claim: `if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[1]) then return 1 end return 0`,
  /** KEYS: open, trip, probe of each breaker; returns PTTL open, EXISTS trip, EXISTS probe of each. */
  read: `local out = {} for i = 1, #KEYS, 3 do
local ttl = redis.call('PTTL', KEYS[i]) if ttl < 0 then ttl = 0 end
out[#out + 1] = ttl out[#out + 1] = redis.call('EXISTS', KEYS[i + 1]) out[#out + 1] = redis.call('EXISTS', KEYS[i + 2]) end return out`,
} as const;

/**
 * The {@link BreakerStore} on Redis (`chatflux/redis`): every process and instance with the same Redis shares each
 * route target's open breaker and its half-open probe. One round trip per state change (a Lua script for a trip and
 * a probe claim — `SET NX PX`: one winner —, `DEL` for a reset or a release) and one per route and period for reading
 * its targets' states; every key has a TTL (the cool-down, the probe's claim, the trip's memory), so a process that
 * dies holding the probe frees it. Breaker names are hashed into the keys. Unreachable or slow, it rejects at once (no
 * offline queue): the routes then run their own breakers, and say so.
 *
 * ```ts
 * import { createRedisBreakerStore } from 'chatflux/redis';
 * const route = createChatRoute({ targets, breakerStore: createRedisBreakerStore({ url: process.env.CHATFLUX_REDIS_URL! }) });
 * ```
 * @param config - The Redis URL, the key prefix and the command timeout.
 * @returns The store.
 * @throws ConfigError for a missing URL or a setting out of range.
 */
export function createRedisBreakerStore(config: RedisBreakerStoreConfig): BreakerStore {
  const { url, prefix, commandTimeoutMs } = resolveRedisStoreConfig('createRedisBreakerStore', config, 250);
  const connection = connectRedis({ url, commandTimeoutMs, maxReconnectDelayMs: 500, onError: config.onError ?? ((): void => undefined) });
  const keysOf = (name: string): [string, string, string] => {
    const tag = `${prefix}br:{${createHash('sha256').update(name, 'utf8').digest('base64url').slice(0, 22)}}`;
    return [`${tag}:open`, `${tag}:trip`, `${tag}:probe`];
  };
  const ms = (value: number): number => Math.max(1, Math.ceil(value));
  return {
    scope: 'shared',
    trip: async (name, coolDownMs) => {
      await connection.connected();
      await connection.evalScript(SCRIPTS.trip, keysOf(name), [ms(coolDownMs), ms(coolDownMs + BREAKER_TRIP_MEMORY_MS)]);
    },
    claimProbe: async (name, ttlMs) => {
      await connection.connected();
      return Number(await connection.evalScript(SCRIPTS.claim, keysOf(name), [ms(ttlMs)])) === 1;
    },
    reset: async (name) => {
      await connection.connected();
      await connection.send(['DEL', ...keysOf(name)]);
    },
    releaseProbe: async (name) => {
      await connection.connected();
      await connection.send(['DEL', keysOf(name)[2]]);
    },
    read: async (names) => {
      if (names.length === 0) return [];
      await connection.connected();
      const reply = await connection.evalScript(SCRIPTS.read, names.flatMap(keysOf), []);
      const values = (Array.isArray(reply) ? reply : []).map(Number);
      return names.map((_, i) => ({ openMs: values[3 * i] ?? 0, tripped: values[3 * i + 1] === 1, probing: values[3 * i + 2] === 1 }));
    },
    close: () => connection.close(),
  };
}
