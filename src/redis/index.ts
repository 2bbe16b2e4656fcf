/**
 * `chatflux/redis`: the stream log on Redis (`createRedisStreamLog`), so that every instance can resume, follow and
 * cancel every streamed answer, and the rate-limit store on Redis (`createRedisRateLimitStore`), so that every
 * instance enforces the same per-key limits, and the routes' circuit breakers on Redis (`createRedisBreakerStore`), so that
 * an open breaker and its probe hold for every instance. The only entry point that imports the optional peer dependency `redis`
 * (node-redis 6). The ports' types (`StreamLog`, `StreamProducer`, `RateLimitStore`, …) are on `chatflux`. Re-exports only.
 * @packageDocumentation
 * @module chatflux/redis
 */
export { createRedisStreamLog } from './createRedisStreamLog.js';
export type { RedisStreamLogConfig } from './RedisStreamLogConfig.js';
export { createRedisRateLimitStore } from './createRedisRateLimitStore.js';
export type { RedisRateLimitStoreConfig } from './RedisRateLimitStoreConfig.js';
export { createRedisBreakerStore, type RedisBreakerStoreConfig } from './createRedisBreakerStore.js';
