import { createHash } from 'node:crypto';
import { ConfigError } from '../core/errors.js';
import { CONCURRENCY_RETRY_MS } from '../store/CONCURRENCY_RETRY_MS.js';
import type { RateLimitDecision, RateLimitStore } from '../store/RateLimitStore.js';
import { connectRedis } from './connectRedis.js';
import { RATE_LIMIT_SCRIPTS } from './RATE_LIMIT_SCRIPTS.js';
import type { RedisRateLimitStoreConfig } from './RedisRateLimitStoreConfig.js';

const PERIOD_MS = 60_000;
const num = (value: unknown): number => (typeof value === 'number' ? value : Number(value));

/**
 * The {@link RateLimitStore} on Redis (`chatflux/redis`): every process and instance with the same Redis shares each
 * client's limits. One round trip per admission (one Lua script: the expired places dropped, the places counted,
 * the GCRA of the rate, both charged only when both admit — on Redis's clock, `TIME`), one per release (`ZREM`),
 * one per renewal of a held place (every third of its TTL). A process that dies holding places frees them when their
 * TTL runs out. The client key is hashed into the Redis key, so a client-chosen key is never stored, and every key
 * expires once its quota is whole and its places are gone.
 *
 * When Redis is unreachable or slow (past `commandTimeoutMs`) a decision rejects at once (no offline queue) and the
 * serving core applies its failure policy (`RateLimitsConfig.onStoreFailure`); the client reconnects in the
 * background (backoff capped at 500 ms), so shared limiting resumes within a second of Redis answering.
 *
 * ```ts
 * import { createRedisRateLimitStore } from 'chatflux/redis';
 * const store = createRedisRateLimitStore({ url: process.env.CHATFLUX_REDIS_URL! });
 * chatRouter({ client, limits: { requestsPerMinute: 60, maxConcurrent: 4, store, expectedInstances: 3 } });
 * ```
 * @param config - The Redis URL, the key prefix and the command timeout.
 * @returns The store.
 * @throws ConfigError for a missing URL or a setting out of range.
 */
export function createRedisRateLimitStore(config: RedisRateLimitStoreConfig): RateLimitStore {
  if (typeof config.url !== 'string' || !/^rediss?:\/\//.test(config.url)) {
    throw new ConfigError('createRedisRateLimitStore: `url` must be a redis:// or rediss:// URL (e.g. process.env.CHATFLUX_REDIS_URL)');
  }
  const prefix = config.keyPrefix ?? 'cf:';
  if (!/^[\w:.-]{0,32}$/.test(prefix)) throw new ConfigError('createRedisRateLimitStore: `keyPrefix` is at most 32 characters of [A-Za-z0-9_:.-]');
  const commandTimeoutMs = config.commandTimeoutMs ?? 250;
  if (!Number.isSafeInteger(commandTimeoutMs) || commandTimeoutMs < 1) {
    throw new ConfigError(`createRedisRateLimitStore: \`commandTimeoutMs\` must be a whole number ≥ 1; got ${String(commandTimeoutMs)}`);
  }
  const connection = connectRedis({ url: config.url, commandTimeoutMs, maxReconnectDelayMs: 500, onError: config.onError ?? ((): void => undefined) });
  const keysOf = (client: string): [string, string] => {
    const tag = `${prefix}rl:{${createHash('sha256').update(client, 'utf8').digest('base64url').slice(0, 22)}}`;
    return [`${tag}:rate`, `${tag}:places`];
  };
  return {
    scope: 'shared',
    admit: async ({ key, rule, placeId, placeTtlMs }) => {
      await connection.connected();
      const { requestsPerMinute: rpm, maxConcurrent: max } = rule;
      const reply = await connection.evalScript(RATE_LIMIT_SCRIPTS.admit, keysOf(key), [rpm ?? '', PERIOD_MS, max ?? '', placeId, placeTtlMs]);
      const [allowed, refusedBy, remaining, resetMs, retryAfterMs, placesLeft] = (Array.isArray(reply) ? reply : []).map(num);
      return {
        allowed: allowed === 1,
        ...(refusedBy === 1 ? { refusedBy: 'requests' as const } : refusedBy === 2 ? { refusedBy: 'concurrency' as const } : {}),
        ...(rpm === undefined || remaining === undefined || remaining < 0 ? {} : { requests: { remaining, resetMs: resetMs ?? 0 } }),
        ...(max === undefined ? {} : { concurrency: { remaining: Math.max(0, placesLeft ?? 0) } }),
        retryAfterMs: refusedBy === 2 ? CONCURRENCY_RETRY_MS : (retryAfterMs ?? 0),
      } satisfies RateLimitDecision;
    },
    renew: async (key, placeId, ttlMs) => {
      await connection.evalScript(RATE_LIMIT_SCRIPTS.renew, [keysOf(key)[1]], [placeId, ttlMs]);
    },
    release: async (key, placeId) => {
      await connection.send(['ZREM', keysOf(key)[1], placeId]);
    },
    close: () => connection.close(),
  };
}
