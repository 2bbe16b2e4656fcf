/**
 * createRedisRateLimitStore against a real redis-server: the RateLimitStore contract over two connections (two
 * processes' views), what only Redis does (Redis's clock, hashed keys that expire, one round trip per admission),
 * and the serving core's limiter (`createRateLimiter`) when Redis dies under each failure policy, and comes back.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { isCapacityError } from '../../src/core/errors';
import { createRedisRateLimitStore } from '../../src/redis/createRedisRateLimitStore';
import { createRateLimiter } from '../../src/serve/createRateLimiter';
import type { RateLimitStoreEvent, RateLimitStoreFailurePolicy } from '../../src/serve/RateLimitsConfig';
import type { RateLimitStore } from '../../src/store/RateLimitStore';
import { budgetPeriods } from '../../src/store/budgetPeriods';
import { rateLimitStoreContractSuite } from '../helpers/rateLimitStoreContractSuite';
import { startRedis, type TestRedis } from '../helpers/startRedis';

let redis: TestRedis;
let admin: ReturnType<typeof createClient>;
beforeAll(async () => {
  redis = await startRedis();
  admin = createClient({ url: redis.url, RESP: 2 });
  admin.on('error', () => undefined); // Redis is killed on purpose below
  await admin.connect();
}, 30_000);
afterAll(async () => {
  await admin?.close();
  await redis?.stop();
});

rateLimitStoreContractSuite({
  name: 'createRedisRateLimitStore',
  views: () => [createRedisRateLimitStore({ url: redis.url }), createRedisRateLimitStore({ url: redis.url })],
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const untilTrue = async (check: () => Promise<boolean>, withinMs: number): Promise<number> => {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await sleep(20);
  }
  return Date.now() - started;
};

describe('createRedisRateLimitStore', () => {
  let store: RateLimitStore;
  beforeAll(() => {
    store = createRedisRateLimitStore({ url: redis.url, keyPrefix: 'own:' });
  });
  afterAll(() => store.close());

  it('never stores the client key: its keys are a hash under one hash tag, each with a TTL, gone once idle', async () => {
    const key = `secret-client-${randomUUID()}`;
    await store.admit({ key, rule: { requestsPerMinute: 600, maxConcurrent: 3 }, placeId: 'p1', placeTtlMs: 500 });
    const keys = await admin.keys('own:*');
    expect(keys).toHaveLength(3);
    for (const name of keys) {
      expect(name).not.toContain(key);
      expect(name).toMatch(/^own:rl:\{[\w-]{22}\}:(rate|places|adm:p1)$/); // adm: the admission's record (the request id), for its abort
      expect(await admin.pTTL(name)).toBeGreaterThan(0);
    }
    await untilTrue(async () => (await admin.keys('own:*')).length === 0, 3000); // 100 ms of rate, 500 ms of place
  });

  it('decides on Redis\'s clock in one round trip (one EVALSHA per admission)', async () => {
    const calls = async (): Promise<number> => {
      const stats = await admin.info('commandstats');
      return ['evalsha', 'eval'].reduce((sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0);
    };
    await store.admit({ key: 'round-trips', rule: { requestsPerMinute: 1000 }, placeId: 'warm', placeTtlMs: 5000 }); // the script loaded
    const before = await calls();
    const sent = Number(/total_connections_received:(\d+)/.exec(await admin.info('stats'))?.[1]);
    for (let i = 0; i < 10; i++) await store.admit({ key: 'round-trips', rule: { requestsPerMinute: 1000, maxConcurrent: 100 }, placeId: `r${i}`, placeTtlMs: 5000 });
    expect((await calls()) - before).toBe(10);
    expect(Number(/total_connections_received:(\d+)/.exec(await admin.info('stats'))?.[1])).toBe(sent); // no new connection either
    const [stamp] = (await admin.sendCommand(['TIME'])) as [string, string];
    const stored = Number(await admin.get((await admin.keys('own:rl:*:rate'))[0] ?? ''));
    expect(Math.abs(stored - Number(stamp) * 1000)).toBeLessThan(5000); // Redis's own ms clock, whatever ours says
  });

  it('weighs tokens and budgets in the same one script per admission and one per settlement, under one hash tag, with the calendar of budgetPeriods', async () => {
    const calls = async (): Promise<number> => {
      const stats = await admin.info('commandstats');
      return ['evalsha', 'eval'].reduce((sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0);
    };
    const rule = { requestsPerMinute: 1000, maxConcurrent: 10, tokensPerMinute: 1_000_000, modelTokensPerMinute: 1_000_000, tokensPerDay: 1_000_000, tokensPerMonth: 10_000_000 };
    const key = `tokens-${randomUUID()}`;
    await store.admit({ key, rule, placeId: 'warm', placeTtlMs: 5000, tokens: 1, model: 'm' });
    await store.settle({ key, rule, placeId: 'warm', model: 'm', reserved: 1, used: 1 });
    const before = await calls();
    const decision = await store.admit({ key, rule, placeId: 'one', placeTtlMs: 5000, tokens: 100, model: 'm' });
    expect((await calls()) - before).toBe(1);
    await store.settle({ key, rule, placeId: 'one', model: 'm', reserved: 100, used: 50 });
    expect((await calls()) - before).toBe(2);
    const [stamp] = (await admin.sendCommand(['TIME'])) as [string, string];
    const now = Number(stamp) * 1000;
    // the month's end as Lua computes it from TIME is the calendar's (budgetPeriods), whichever month this runs in
    expect(Math.abs((decision.budget?.resetMs ?? 0) - (budgetPeriods(now).monthEnd - now))).toBeLessThan(5000);
    const names = await admin.keys('own:*');
    const tags = new Set(names.filter((name) => /:(tpm|budget|resv|resvx)/.test(name)).map((name) => /\{([\w-]+)\}/.exec(name)?.[1]));
    expect(tags.size).toBe(1); // one client's keys: one hash tag (one Cluster slot)
    for (const name of names) expect(await admin.pTTL(name)).not.toBe(-1); // every key expires (-2: gone already)
  });

  it('takes a reply that came while this process was busy past the command timeout: a blocked event loop is not a Redis outage', async () => {
    const busy = createRedisRateLimitStore({ url: redis.url, commandTimeoutMs: 100 });
    try {
      await busy.admit({ key: 'busy', rule: { requestsPerMinute: 1000 }, placeId: 'warm', placeTtlMs: 1000 }); // connected, script loaded
      // Redis busy for 80 ms (another client's script), so the admission's reply comes while this process is blocked
      const hold = admin.sendCommand(['EVAL', "local s = redis.call('TIME') local t = s repeat t = redis.call('TIME') until (t[1] - s[1]) * 1000000 + (t[2] - s[2]) > 80000 return 1", '0']);
      await sleep(5);
      const decision = busy.admit({ key: 'busy', rule: { requestsPerMinute: 1000 }, placeId: 'late', placeTtlMs: 1000 });
      await sleep(5); // written
      // the event loop blocked 3 × the timeout by other work (a busy machine) — in an I/O phase, as a request's
      // handling would: the next turn runs the due timers before it reads the reply that came meanwhile
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const until = Date.now() + 300;
          while (Date.now() < until);
          resolve();
        }),
      );
      await hold;
      await expect(decision).resolves.toMatchObject({ allowed: true });
    } finally {
      await busy.close();
    }
  });

  it('computes the budgets\' calendar in Lua as budgetPeriods does, at month and year ends', () => {
    // (the Lua runs on Redis's clock, which a test cannot move: the JS calendar is checked at the edges instead)
    expect(budgetPeriods(Date.UTC(2024, 1, 29, 23, 59)).monthEnd).toBe(Date.UTC(2024, 2, 1));
    expect(budgetPeriods(Date.UTC(2026, 11, 31, 12)).monthEnd).toBe(Date.UTC(2027, 0, 1));
    expect(budgetPeriods(Date.UTC(2026, 11, 31, 12)).dayEnd).toBe(Date.UTC(2027, 0, 1));
  });
});

describe('createRateLimiter over Redis: Redis killed under each failure policy, and back', () => {
  const scenario = async (policy: RateLimitStoreFailurePolicy) => {
    const events: RateLimitStoreEvent[] = [];
    const shared = createRedisRateLimitStore({ url: redis.url, commandTimeoutMs: 200 });
    const peer = createRedisRateLimitStore({ url: redis.url, commandTimeoutMs: 200 });
    const config = { requestsPerMinute: 4, onStoreFailure: policy, expectedInstances: 2, onStoreError: (event: RateLimitStoreEvent) => events.push(event) };
    const limiter = createRateLimiter({ ...config, store: shared });
    const other = createRateLimiter({ ...config, store: peer, onStoreError: () => undefined });
    return { events, limiter, other, close: () => Promise.all([shared.close(), peer.close()]) };
  };
  const outcome = (promise: Promise<unknown>): Promise<string> =>
    promise.then(
      () => 'admitted',
      (error: unknown) => (isCapacityError(error) ? error.code : `other: ${String(error)}`),
    );

  it.each<[RateLimitStoreFailurePolicy, string[]]>([
    ['local', ['admitted', 'admitted', 'rate_limit_exceeded', 'rate_limit_exceeded']], // 4 per minute / 2 instances
    ['open', ['admitted', 'admitted', 'admitted', 'admitted']],
    ['closed', ['limits_unavailable', 'limits_unavailable', 'limits_unavailable', 'limits_unavailable']],
  ])('policy %s: told once, decides %j while Redis is down, and shares again within a second of its return', async (policy, whileDown) => {
    const { events, limiter, other, close } = await scenario(policy);
    try {
      const client = `client-${policy}-${randomUUID()}`;
      expect(await outcome(limiter.admit(client))).toBe('admitted'); // shared: warm, Redis up
      await redis.kill();
      const down = [];
      for (let i = 0; i < 4; i++) down.push(await outcome(limiter.admit(client)));
      expect(down).toEqual(whileDown);
      expect(events.map((event) => [event.state, event.policy])).toEqual([['failing', policy]]); // never silent, told once
      await redis.restart();
      const back = Date.now();
      // shared again: the decisions of both instances count together (a fresh Redis: 4 per minute for the key)
      const fresh = `fresh-${policy}-${randomUUID()}`;
      await untilTrue(async () => (await outcome(limiter.admit(fresh))) === 'admitted' && events.at(-1)?.state === 'recovered', 5000);
      const resumedMs = Date.now() - back;
      expect(resumedMs).toBeLessThan(1000 + 500); // reconnection backoff capped at 500 ms, plus a busy machine's slack
      const after = [];
      for (let i = 0; i < 4; i++) after.push(await outcome((i % 2 === 0 ? other : limiter).admit(fresh)));
      expect(after).toEqual(['admitted', 'admitted', 'admitted', 'rate_limit_exceeded']); // 1 + 3 = the shared 4
    } finally {
      await close();
    }
  }, 30_000);
});
