/**
 * No leaks from resumable answers on Redis (issue #30): 1,000 streams through a gateway program with
 * `CHATFLUX_REDIS_URL` — every key it writes has a TTL, the key count returns to its baseline once the retention has
 * passed, and the Redis connection count and the gateway's RSS stay flat. Bounded: 1,000 short answers, 20 at a time.
 */
import { readFileSync } from 'node:fs';
import { createClient } from 'redis';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { startProgram, type SpawnedProgram } from '../../test/helpers/gatewayProgram';
import { rawRequest } from '../../test/helpers/rawRequest';
import { startRedis, type TestRedis } from '../../test/helpers/startRedis';

const KEY = 'leak-gateway-key-0123456789';
const RETENTION_MS = 2000;
const STREAMS = 1000;
const CONCURRENCY = 20;

/** The process's resident set size, in bytes (VmRSS of /proc/<pid>/status). */
const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('resumable answers on Redis: no leaks after 1,000 streams', () => {
  let emulator: Emulator;
  let redis: TestRedis;
  let gateway: SpawnedProgram & { url: string };
  let admin: ReturnType<typeof createClient>;
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 9, requestLog: false, requestScenarios: true });
    redis = await startRedis();
    admin = createClient({ url: redis.url });
    await admin.connect();
    gateway = await startProgram({
      CHATFLUX_PROVIDER: 'openai-compatible',
      CHATFLUX_BASE_URL: emulator.url,
      CHATFLUX_API_KEY: 'sk-leak-upstream',
      CHATFLUX_MODEL: 'deepseek-chat',
      CHATFLUX_GATEWAY_KEYS: KEY,
      CHATFLUX_HEARTBEAT_MS: '0',
      CHATFLUX_MAX_CONCURRENT_PER_CLIENT: '0',
      CHATFLUX_REDIS_URL: redis.url,
      CHATFLUX_STREAM_RETENTION_MS: String(RETENTION_MS),
    });
  }, 60_000);
  afterAll(async () => {
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
    await admin?.quit();
    await redis?.stop();
    await emulator?.close();
  }, 30_000);

  /** `count` answers of `/chat/sse` and `/chat/stream` in turn, `CONCURRENCY` at a time; every one resumable everywhere. */
  const stream = async (count: number): Promise<void> => {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const endpoint = next++ % 2 === 0 ? '/chat/sse' : '/chat/stream';
        const res = await rawRequest(`${gateway.url}${endpoint}`, {
          headers: { Authorization: `Bearer ${KEY}` },
          body: { model: 'deepseek-chat#tokens=20', messages: [{ role: 'user', content: 'leak?' }] },
        });
        expect(res.status).toBe(200);
        expect(res.headers['chatflux-resumable']).toBeUndefined();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  const connections = async (): Promise<number> => (await admin.sendCommand(['CLIENT', 'LIST']))!.toString().trim().split('\n').length;
  const keys = async (): Promise<string[]> => {
    const found: string[] = [];
    for await (const batch of admin.scanIterator({ MATCH: '*', COUNT: 1000 })) found.push(...(Array.isArray(batch) ? batch : [batch]));
    return found;
  };

  it('gives every key a TTL, lets them all go after the retention, and keeps connections and RSS flat', async () => {
    await stream(100); // warm-up: the gateway's connections, pools and JIT
    await sleep(RETENTION_MS + 1000);
    const keysBefore = (await keys()).length;
    const connectionsBefore = await connections();
    const rssBefore = rssOf(gateway.child.pid!);

    await stream(STREAMS);
    const written = await keys();
    expect(written.length).toBeGreaterThan(keysBefore);
    const ttls = await Promise.all(written.map((key) => admin.pTTL(key)));
    expect(ttls.filter((ttl) => ttl === -1)).toEqual([]); // -1: a key without an expiry
    expect(await connections()).toBeLessThanOrEqual(connectionsBefore + 2);

    await sleep(RETENTION_MS + 1500);
    expect((await keys()).length).toBeLessThanOrEqual(keysBefore);
    expect(await connections()).toBeLessThanOrEqual(connectionsBefore + 2);
    const rssAfter = rssOf(gateway.child.pid!);
    console.log(`RSS ${Math.round(rssBefore / 2 ** 20)} MB before ${STREAMS} streams, ${Math.round(rssAfter / 2 ** 20)} MB after; keys ${keysBefore} → ${written.length} → back`);
    expect(rssAfter).toBeLessThan(rssBefore * 1.5 + 32 * 2 ** 20); // flat, with room for a busy machine's GC timing
  }, 120_000);
});
