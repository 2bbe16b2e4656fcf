/**
 * `chatflux/redis`: the stream log on Redis (`createRedisStreamLog`), so that every instance can resume, follow and
 * cancel every streamed answer. The only entry point that imports the optional peer dependency `redis` (node-redis 6).
 * The port's types (`StreamLog`, `StreamProducer`, …) are on `chatflux`. Re-exports only.
 * @packageDocumentation
 * @module chatflux/redis
 */
export { createRedisStreamLog } from './createRedisStreamLog.js';
export type { RedisStreamLogConfig } from './RedisStreamLogConfig.js';
