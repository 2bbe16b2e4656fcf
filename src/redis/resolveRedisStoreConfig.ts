import { ConfigError } from '../core/errors.js';

/** What every Redis store of `chatflux/redis` is given to reach Redis. */
interface RedisStoreConnectionConfig {
  readonly url: string;
  readonly keyPrefix?: string;
  readonly commandTimeoutMs?: number;
}

/** The connection settings of a Redis store, checked (see {@link resolveRedisStoreConfig}). */
export interface RedisStoreSettings {
  /** The `redis://` or `rediss://` URL. */
  readonly url: string;
  /** The prefix of every key (default `cf:`). */
  readonly prefix: string;
  /** How long a command may take before the store rejects, in ms. */
  readonly commandTimeoutMs: number;
}

/**
 * Checks the connection settings every Redis store takes — the URL, the key prefix, the command timeout — written once
 * for the stream log, the rate-limit store and the breaker store.
 *
 * @param store - The factory's name, for the error (`createRedisRateLimitStore`).
 * @param config - The store's config.
 * @param defaultTimeoutMs - The store's own command timeout when the config sets none.
 * @returns The settings.
 * @throws ConfigError naming the field: a URL that is not `redis://` / `rediss://`, a prefix over 32 characters of
 *   `[A-Za-z0-9_:.-]`, a timeout that is not a whole number ≥ 1.
 */
export function resolveRedisStoreConfig(store: string, config: RedisStoreConnectionConfig, defaultTimeoutMs: number): RedisStoreSettings {
  if (typeof config.url !== 'string' || !/^rediss?:\/\//.test(config.url)) {
    throw new ConfigError(`${store}: \`url\` must be a redis:// or rediss:// URL (e.g. process.env.CHATFLUX_REDIS_URL)`);
  }
  const prefix = config.keyPrefix ?? 'cf:';
  if (!/^[\w:.-]{0,32}$/.test(prefix)) throw new ConfigError(`${store}: \`keyPrefix\` is at most 32 characters of [A-Za-z0-9_:.-]`);
  const commandTimeoutMs = config.commandTimeoutMs ?? defaultTimeoutMs;
  if (!Number.isSafeInteger(commandTimeoutMs) || commandTimeoutMs < 1) {
    throw new ConfigError(`${store}: \`commandTimeoutMs\` must be a whole number ≥ 1; got ${String(commandTimeoutMs)}`);
  }
  return { url: config.url, prefix, commandTimeoutMs };
}
