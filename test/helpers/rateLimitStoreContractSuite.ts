/**
 * The RateLimitStore contract, run against every store: the memory store (one process: both views are one store)
 * and the Redis store (two connections, as two processes would have). What one view admits, the other sees.
 */
import { randomUUID } from 'node:crypto';
import type { RateLimitRule, RateLimitStore } from '../../src/store/RateLimitStore';

/** How a suite gets its stores. */
export interface RateLimitStoreSuiteConfig {
  readonly name: string;
  /** Two views of one store (two processes' connections, or one store twice). */
  views(): Promise<[RateLimitStore, RateLimitStore]> | [RateLimitStore, RateLimitStore];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the contract's tests. */
export function rateLimitStoreContractSuite(config: RateLimitStoreSuiteConfig): void {
  describe(`${config.name}: the RateLimitStore contract`, () => {
    let a: RateLimitStore;
    let b: RateLimitStore;
    beforeAll(async () => {
      [a, b] = await config.views();
    });
    afterAll(async () => {
      await a.close();
      if (b !== a) await b.close();
    });
    const ask = (store: RateLimitStore, key: string, rule: RateLimitRule, placeTtlMs = 30_000) => store.admit({ key, rule, placeId: randomUUID(), placeTtlMs });

    it('admits requestsPerMinute requests at once across both views, counting remaining down, then refuses with the wait of one interval', async () => {
      const key = `rate-${randomUUID()}`;
      const rule = { requestsPerMinute: 6 };
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push(await ask(i % 2 === 0 ? a : b, key, rule));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, true]);
      expect(decisions.map((d) => d.requests?.remaining)).toEqual([5, 4, 3, 2, 1, 0]);
      const refused = await ask(b, key, rule);
      expect(refused).toMatchObject({ allowed: false, refusedBy: 'requests', requests: { remaining: 0 } });
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(10_000); // one interval: 60 s / 6
      expect(refused.requests?.resetMs).toBeGreaterThan(50_000);
      expect(refused.requests?.resetMs).toBeLessThanOrEqual(60_000);
    });

    it('holds maxConcurrent places across both views; a release frees one; a refusal asks for a second', async () => {
      const key = `places-${randomUUID()}`;
      const rule = { maxConcurrent: 2 };
      const first = { key, rule, placeId: randomUUID(), placeTtlMs: 30_000 };
      expect(await a.admit(first)).toMatchObject({ allowed: true, concurrency: { remaining: 1 } });
      expect(await ask(b, key, rule)).toMatchObject({ allowed: true, concurrency: { remaining: 0 } });
      expect(await ask(a, key, rule)).toMatchObject({ allowed: false, refusedBy: 'concurrency', retryAfterMs: 1000 });
      await b.release(key, first.placeId);
      expect(await ask(b, key, rule)).toMatchObject({ allowed: true });
      expect(await ask(a, key, rule)).toMatchObject({ allowed: false });
    });

    it('charges nothing for a refusal: a request refused by its places takes no rate, one refused by its rate no place', async () => {
      const key = `both-${randomUUID()}`;
      const rule = { requestsPerMinute: 2, maxConcurrent: 1 };
      const held = { key, rule, placeId: randomUUID(), placeTtlMs: 30_000 };
      expect(await a.admit(held)).toMatchObject({ allowed: true, requests: { remaining: 1 } });
      expect(await ask(b, key, rule)).toMatchObject({ allowed: false, refusedBy: 'concurrency' });
      await a.release(key, held.placeId);
      expect(await ask(b, key, rule)).toMatchObject({ allowed: true, requests: { remaining: 0 } }); // the refusal cost no rate
      const place = `${key}-other`;
      expect(await ask(a, place, { requestsPerMinute: 1, maxConcurrent: 5 })).toMatchObject({ allowed: true, concurrency: { remaining: 4 } });
      expect(await ask(a, place, { requestsPerMinute: 1, maxConcurrent: 5 })).toMatchObject({ allowed: false, refusedBy: 'requests', concurrency: { remaining: 4 } });
    });

    it('frees a place nobody renews once its TTL has passed, and keeps one that is renewed', async () => {
      const key = `ttl-${randomUUID()}`;
      const rule = { maxConcurrent: 1 };
      const renewed = { key: `${key}-renewed`, rule, placeId: randomUUID(), placeTtlMs: 400 };
      expect(await ask(a, key, rule, 400)).toMatchObject({ allowed: true });
      expect(await b.admit(renewed)).toMatchObject({ allowed: true });
      for (let i = 0; i < 5; i++) {
        await sleep(150);
        await b.renew(renewed.key, renewed.placeId, 400);
      }
      expect(await ask(b, key, rule)).toMatchObject({ allowed: true }); // the first expired unrenewed (750 ms > 400)
      expect(await ask(a, renewed.key, rule)).toMatchObject({ allowed: false }); // renewed: still held
    });

    it('keeps each key to itself', async () => {
      const rule = { requestsPerMinute: 1, maxConcurrent: 1 };
      expect(await ask(a, `one-${randomUUID()}`, rule)).toMatchObject({ allowed: true });
      expect(await ask(b, `two-${randomUUID()}`, rule)).toMatchObject({ allowed: true });
    });
  });
}
