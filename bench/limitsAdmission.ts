/**
 * What the per-key limits (issue #31) cost an admission — measured, not asserted: the serving core's limiter
 * (`createRateLimiter`: one decision, the place held, then released) with no limits, the memory store, and the Redis
 * store (a local `redis-server`, started here and stopped by PID), in the same run: p50, p99 and mean per admission.
 * With Redis this is the one round trip (one EVALSHA) a request's first byte waits for.
 *
 * Run: `npx tsx bench/limitsAdmission.ts [--admissions 5000]`
 */
import { createRedisRateLimitStore } from '../src/redis/createRedisRateLimitStore.js';
import { createRateLimiter } from '../src/serve/createRateLimiter.js';
import type { RateLimitStore } from '../src/store/RateLimitStore.js';
import { startRedis } from '../test/helpers/startRedis.js';

const at = process.argv.indexOf('--admissions');
const ADMISSIONS = at < 0 ? 5000 : Number(process.argv[at + 1]);
const WARMUP = Math.min(500, ADMISSIONS);

const measure = async (name: string, limits: { store?: RateLimitStore } | undefined): Promise<void> => {
  const limiter = limits === undefined ? undefined : createRateLimiter({ requestsPerMinute: 1_000_000_000, maxConcurrent: 1000, ...limits });
  const times: number[] = [];
  for (let i = 0; i < WARMUP + ADMISSIONS; i++) {
    const started = performance.now();
    const admitted = await limiter?.admit(`client-${i % 50}`);
    admitted?.release();
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const pick = (q: number): string => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(3);
  const mean = (times.reduce((sum, t) => sum + t, 0) / times.length).toFixed(3);
  console.log(`${name.padEnd(8)} p50 ${pick(0.5)} ms  p99 ${pick(0.99)} ms  mean ${mean} ms  (${ADMISSIONS} admissions)`);
};

const main = async (): Promise<void> => {
  const redis = await startRedis();
  const store = createRedisRateLimitStore({ url: redis.url });
  try {
    await measure('off', undefined);
    await measure('memory', {});
    await measure('redis', { store });
  } finally {
    await store.close();
    await redis.stop();
  }
};
void main();
