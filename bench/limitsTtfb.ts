/**
 * What the per-key limits (issue #31) cost a request's first byte — measured, not asserted: `POST /chat/stream` on
 * Express's `chatRouter` in front of the upstream emulator, with no limits, with limits in memory, and with limits on a
 * local `redis-server` (started here, stopped by PID), in the same run and interleaved (one request of each in turn),
 * requests per minute, running at once AND weighted tokens per minute (so the Redis runs make their two round trips:
 * the admission before the first byte, the settlement after the last). Time to first byte: from the request sent to
 * the first body byte; p50, p99 and mean.
 *
 * Run: `npx tsx bench/limitsTtfb.ts [--requests 300]`
 */
import express from 'express';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChatClient } from '../src/client/createChatClient.js';
import { chatRouter } from '../src/express/chatRouter.js';
import { createRedisRateLimitStore } from '../src/redis/createRedisRateLimitStore.js';
import type { RateLimitsConfig } from '../src/serve/RateLimitsConfig.js';
import { startEmulator } from '../src/testing/startEmulator.js';
import { startRedis } from '../test/helpers/startRedis.js';

const at = process.argv.indexOf('--requests');
const REQUESTS = at < 0 ? 300 : Number(process.argv[at + 1]);
const WARMUP = 30;
const KEY = 'bench-limits-key-0123456789';
const BODY = JSON.stringify({ model: 'deepseek-chat#tokens=20', messages: [{ role: 'user', content: 'Hello, how are you today?' }], max_tokens: 64 });

/** One request: ms until the first body byte (the whole answer read, so the next starts on a free server). */
const ttfb = (url: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    let first = 0;
    const req = httpRequest(`${url}/chat/stream`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode ?? 0}`));
      res.on('data', () => {
        if (first === 0) first = performance.now() - started;
      });
      res.on('end', () => resolve(first));
    });
    req.on('error', reject);
    req.end(BODY);
  });

const main = async (): Promise<void> => {
  const emulator = await startEmulator({ dialect: 'deepseek', seed: 3 });
  const redis = await startRedis();
  const store = createRedisRateLimitStore({ url: redis.url });
  const servers: Server[] = [];
  const client = createChatClient({ baseUrl: emulator.url, apiKey: 'sk-up', model: 'deepseek-chat', retry: false });
  const limits: RateLimitsConfig = { requestsPerMinute: 1_000_000_000, maxConcurrent: 1000, tokensPerMinute: 1_000_000_000_000 };
  const serve = async (config: RateLimitsConfig | undefined): Promise<string> => {
    const app = express();
    app.use(chatRouter({ client, apiKeys: [KEY], heartbeatMs: 0, ...(config === undefined ? {} : { limits: config }) }));
    const server = await new Promise<Server>((resolve) => {
      const made = app.listen(0, '127.0.0.1', () => resolve(made));
    });
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  try {
    const runs = [
      { name: 'off', url: await serve(undefined), times: [] as number[] },
      { name: 'memory', url: await serve(limits), times: [] as number[] },
      { name: 'redis', url: await serve({ ...limits, store }), times: [] as number[] },
    ];
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      for (const run of runs) {
        const took = await ttfb(run.url);
        if (i >= WARMUP) run.times.push(took);
      }
    }
    for (const { name, times } of runs) {
      times.sort((a, b) => a - b);
      const pick = (q: number): string => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(3);
      const mean = (times.reduce((sum, t) => sum + t, 0) / times.length).toFixed(3);
      console.log(`${name.padEnd(8)} TTFB p50 ${pick(0.5)} ms  p99 ${pick(0.99)} ms  mean ${mean} ms  (${REQUESTS} requests, /chat/stream)`);
    }
  } finally {
    for (const server of servers) server.close();
    await client.close();
    await store.close();
    await redis.stop();
    await emulator.close();
  }
};
void main();
