import { createHash } from 'node:crypto';
import { CONCURRENCY_RETRY_MS } from '../store/CONCURRENCY_RETRY_MS.js';
import type { RateLimitDecision, RateLimitStore } from '../store/RateLimitStore.js';
import { resolveRedisStoreConfig } from './resolveRedisStoreConfig.js';
import { connectRedis } from './connectRedis.js';
import { RATE_LIMIT_SCRIPTS } from './RATE_LIMIT_SCRIPTS.js';
import type { RedisRateLimitStoreConfig } from './RedisRateLimitStoreConfig.js';

const PERIOD_MS = 60_000;
const REFUSED_BY = ['requests', 'concurrency', 'tokens', 'budget'] as const;
const num = (value: unknown): number => (typeof value === 'number' ? value : Number(value));

/**
 * The {@link RateLimitStore} on Redis (`chatflux/redis`): every process and instance with the same Redis shares each
 * client's limits. One round trip per admission (one Lua script: the expired places dropped, the places counted,
 * the GCRA of the rate, both charged only when both admit — on Redis's clock, `TIME`), one per release (`ZREM`),
 * one per renewal of a held place (every third of its TTL). A process that dies holding places frees them when their
 * TTL runs out. An admission whose reply came too late is undone (`abort`: sent after it on the same connection, so
 * Redis runs it after the admission), if it was admitted. The client key is hashed into the Redis key, so a client-chosen key is never stored, and every key
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
  const { url, prefix, commandTimeoutMs } = resolveRedisStoreConfig('createRedisRateLimitStore', config, 250);
  const connection = connectRedis({ url, commandTimeoutMs, maxReconnectDelayMs: 500, onError: config.onError ?? ((): void => undefined) });
  const hash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22);
  /**
   * rate, places, tpm, tpm of the model, budget, resv, resvx, and the admission's record (`adm`, with a place id): one
   * hash tag (one Cluster slot); never the key or model itself.
   */
  const keysOf = (client: string, model?: string, placeId?: string): string[] => {
    const tag = `${prefix}rl:{${hash(client)}}`;
    const keys = [`${tag}:rate`, `${tag}:places`, `${tag}:tpm`, `${tag}:tpm:${model === undefined ? '' : hash(model)}`, `${tag}:budget`, `${tag}:resv`, `${tag}:resvx`];
    if (placeId !== undefined) keys.push(`${tag}:adm:${placeId}`);
    return keys;
  };
  const at = (keys: string[], index: number): string => keys[index] ?? '';
  return {
    scope: 'shared',
    admit: async ({ key, rule, placeId, placeTtlMs, tokens, model }) => {
      await connection.connected();
      const { requestsPerMinute: rpm, maxConcurrent: max, tokensPerMinute: tpm, tokensPerDay: perDay, tokensPerMonth: perMonth } = rule;
      const mtpm = model === undefined ? undefined : rule.modelTokensPerMinute;
      const args = [rpm ?? '', PERIOD_MS, max ?? '', placeId, placeTtlMs, tpm ?? '', tokens ?? '', mtpm ?? '', perDay ?? '', perMonth ?? ''];
      const reply = await connection.evalScript(RATE_LIMIT_SCRIPTS.admit, keysOf(key, model, placeId), args);
      const [allowed, refusedBy, remaining, resetMs, retryAfterMs, placesLeft, tokensLeft, tokensReset, budgetLeft, budgetReset, expired] = (Array.isArray(reply) ? reply : []).map(num);
      return {
        allowed: allowed === 1,
        ...(refusedBy === undefined || refusedBy < 1 ? {} : { refusedBy: REFUSED_BY[refusedBy - 1] ?? 'requests' }),
        ...(rpm === undefined || remaining === undefined || remaining < 0 ? {} : { requests: { remaining, resetMs: resetMs ?? 0 } }),
        ...(max === undefined ? {} : { concurrency: { remaining: Math.max(0, placesLeft ?? 0) } }),
        ...(tokensLeft === undefined || tokensLeft < 0 ? {} : { tokens: { remaining: tokensLeft, resetMs: tokensReset ?? 0 } }),
        ...(budgetLeft === undefined || budgetLeft < 0 ? {} : { budget: { remaining: budgetLeft, resetMs: budgetReset ?? 0 } }),
        ...(expired === undefined || expired < 1 ? {} : { expiredReservations: expired }),
        retryAfterMs: refusedBy === 2 ? CONCURRENCY_RETRY_MS : (retryAfterMs ?? 0),
      } satisfies RateLimitDecision;
    },
    settle: async ({ key, rule, placeId, model, reserved, used }) => {
      const budgets = rule.tokensPerDay !== undefined || rule.tokensPerMonth !== undefined ? 1 : 0;
      const mtpm = model === undefined ? undefined : rule.modelTokensPerMinute;
      await connection.evalScript(RATE_LIMIT_SCRIPTS.settle, keysOf(key, model, placeId), [placeId, PERIOD_MS, rule.tokensPerMinute ?? '', mtpm ?? '', budgets, reserved, used]);
    },
    abort: async ({ key, rule, placeId, model }) => {
      const mtpm = model === undefined ? undefined : rule.modelTokensPerMinute;
      const keys = keysOf(key, model, placeId);
      // EVAL, not EVALSHA: sent while Redis is slow, a NOSCRIPT reply would come after its caller stopped waiting, and the
      // admission would stay undone (an abort is rare: its script's bytes cost nothing).
      await connection.send(['EVAL', RATE_LIMIT_SCRIPTS.abort, String(keys.length), ...keys, placeId, String(PERIOD_MS), String(rule.requestsPerMinute ?? ''), String(rule.tokensPerMinute ?? ''), String(mtpm ?? '')]);
    },
    renew: async (key, placeId, ttlMs) => {
      const keys = keysOf(key);
      await connection.evalScript(RATE_LIMIT_SCRIPTS.renew, [at(keys, 1), at(keys, 6)], [placeId, ttlMs]);
    },
    release: async (key, placeId) => {
      await connection.send(['ZREM', at(keysOf(key), 1), placeId]);
    },
    close: () => connection.close(),
  };
}
