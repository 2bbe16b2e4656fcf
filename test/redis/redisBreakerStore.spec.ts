/**
 * The breaker store on a real redis-server (issue #31, item 5), two connections standing for two instances: a trip
 * by one is read by the other (open for the cool-down, then tripped: half-open), exactly one of many concurrent
 * claims wins the probe (`SET NX PX`), none before the cool-down; a reset closes it for both; every key has a TTL and
 * none holds the breaker's name; each state change is one command or script. Redis killed: calls reject at once.
 */
import { createClient } from 'redis';
import { createRedisBreakerStore } from '../../src/redis/createRedisBreakerStore';
import type { BreakerStore } from '../../src/store/BreakerStore';
import { startRedis, type TestRedis } from '../helpers/startRedis';

let redis: TestRedis;
let admin: ReturnType<typeof createClient>;
let one: BreakerStore;
let two: BreakerStore;
beforeAll(async () => {
  redis = await startRedis();
  admin = createClient({ url: redis.url, RESP: 2 });
  admin.on('error', () => undefined); // Redis is killed on purpose below
  await admin.connect();
  one = createRedisBreakerStore({ url: redis.url });
  two = createRedisBreakerStore({ url: redis.url });
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await admin?.close();
  await redis?.stop();
});

/** The calls of each command so far (a script's own commands counted under theirs). */
const calls = async (): Promise<Record<'evalsha' | 'eval' | 'del', number>> => {
  const stats = await admin.info('commandstats');
  const count = (name: string): number => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return { evalsha: count('evalsha'), eval: count('eval'), del: count('del') };
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('createRedisBreakerStore', () => {
  it('shares a trip, one probe claim at a time past the cool-down, and a reset, in one round trip each', async () => {
    const name = 'chat/flaky:deepseek-chat';
    expect(await two.read([name])).toEqual([{ openMs: 0, tripped: false, probing: false }]);
    expect(await one.claimProbe(name, 5000)).toBe(false); // closed: nothing to probe
    await one.trip('chat/warm-up', 1); // the script is loaded
    await one.reset('chat/warm-up');
    const before = await calls();
    await one.trip(name, 300);
    const after = await calls();
    expect([after.evalsha - before.evalsha, after.eval - before.eval]).toEqual([1, 0]); // one script, one round trip
    const [seen] = await two.read([name]);
    expect(seen!.tripped).toBe(true);
    expect(seen!.openMs).toBeGreaterThan(0);
    expect(seen!.openMs).toBeLessThanOrEqual(300);
    expect(await two.claimProbe(name, 5000)).toBe(false); // still open
    const keys = await admin.keys('cf:br:*');
    expect(keys).toHaveLength(2); // open, trip
    for (const key of keys) {
      expect(key).not.toContain('flaky');
      expect(Number(await admin.pTTL(key))).toBeGreaterThan(0);
    }
    await sleep(350);
    const claims = await Promise.all([one, two, one, two, one, two].map((store) => store.claimProbe(name, 5000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await two.read([name])).toEqual([{ openMs: 0, tripped: true, probing: true }]);
    await one.releaseProbe(name);
    expect(await two.claimProbe(name, 5000)).toBe(true);
    const beforeReset = await calls();
    await two.reset(name);
    const afterReset = await calls();
    expect([afterReset.del - beforeReset.del, afterReset.evalsha - beforeReset.evalsha]).toEqual([1, 0]); // one DEL
    expect(await one.read([name])).toEqual([{ openMs: 0, tripped: false, probing: false }]);
    expect(await admin.keys('cf:br:*')).toEqual([]);
  });

  it('rejects at once while Redis is down, and answers again once it is back', async () => {
    await redis.kill();
    const started = Date.now();
    await expect(one.read(['chat/x'])).rejects.toThrow();
    await expect(one.trip('chat/x', 1000)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
    await redis.restart();
    let answered = false;
    for (const deadline = Date.now() + 5000; !answered && Date.now() < deadline; await sleep(50)) {
      answered = await one.read(['chat/x']).then(() => true, () => false);
    }
    expect(answered).toBe(true);
  });
});
