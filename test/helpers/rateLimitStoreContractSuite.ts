/**
 * The RateLimitStore contract, run against every store: the memory store (one process: both views are one store)
 * and the Redis store (two connections, as two processes would have). What one view admits, the other sees.
 */
import { randomUUID } from 'node:crypto';
import type { RateLimitAdmission, RateLimitRule, RateLimitStore } from '../../src/store/RateLimitStore';

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

    const reserve = (store: RateLimitStore, key: string, rule: RateLimitRule, tokens: number, placeTtlMs = 30_000, model?: string) => {
      const placeId = randomUUID();
      return store.admit({ key, rule, placeId, placeTtlMs, tokens, ...(model === undefined ? {} : { model }) }).then((decision) => ({ placeId, decision }));
    };

    it('weighs tokens per minute across both views: a request is admitted once what was charged is refilled; the settlement charges what was used', async () => {
      const key = `tpm-${randomUUID()}`;
      const rule = { tokensPerMinute: 600_000 }; // 10 tokens per ms
      const first = await reserve(a, key, rule, 5000); // 500 ms owed
      expect(first.decision).toMatchObject({ allowed: true, tokens: { remaining: 595_000 } });
      const refused = await reserve(b, key, rule, 10);
      expect(refused.decision).toMatchObject({ allowed: false, refusedBy: 'tokens' });
      expect(refused.decision.retryAfterMs).toBeGreaterThan(300);
      expect(refused.decision.retryAfterMs).toBeLessThanOrEqual(500);
      // it used 100 tokens, not 5000: the unused part is refunded at once (100 tokens: 10 ms owed, not 500)
      await a.settle({ key, rule, placeId: first.placeId, reserved: 5000, used: 100 });
      await sleep(30);
      const after = await reserve(b, key, rule, 10);
      expect(after.decision).toMatchObject({ allowed: true });
      // more used than reserved: owed from now on
      await b.settle({ key, rule, placeId: after.placeId, reserved: 10, used: 6000 });
      const owed = await reserve(a, key, rule, 10);
      expect(owed.decision).toMatchObject({ allowed: false, refusedBy: 'tokens' });
      expect(owed.decision.retryAfterMs).toBeGreaterThan(400);
    });

    it('weighs tokens per key and model: one model at its limit leaves the key\'s others admitted', async () => {
      const key = `model-${randomUUID()}`;
      const rule = { tokensPerMinute: 600_000, modelTokensPerMinute: 6000 };
      expect((await reserve(a, key, rule, 100, 30_000, 'big')).decision).toMatchObject({ allowed: true });
      await sleep(20); // the key's own GCRA (10 tokens per ms) is refilled; the model's (0.1 per ms) is not
      expect((await reserve(b, key, rule, 100, 30_000, 'big')).decision).toMatchObject({ allowed: false, refusedBy: 'tokens' });
      expect((await reserve(b, key, rule, 100, 30_000, 'small')).decision).toMatchObject({ allowed: true });
    });

    it('blocks the request that would cross a budget (running reservations count) until it is settled for less', async () => {
      const key = `budget-${randomUUID()}`;
      const rule = { tokensPerDay: 1000, tokensPerMonth: 5000 };
      const first = await reserve(a, key, rule, 600);
      expect(first.decision).toMatchObject({ allowed: true, budget: { remaining: 400 } });
      const crossing = await reserve(b, key, rule, 500);
      expect(crossing.decision).toMatchObject({ allowed: false, refusedBy: 'budget', budget: { remaining: 400 } });
      expect(crossing.decision.retryAfterMs).toBeGreaterThan(0);
      expect(crossing.decision.retryAfterMs).toBeLessThanOrEqual(86_400_000); // the day's end
      await a.settle({ key, rule, placeId: first.placeId, reserved: 600, used: 200 });
      const fits = await reserve(b, key, rule, 500);
      expect(fits.decision).toMatchObject({ allowed: true, budget: { remaining: 300 } });
      await b.settle({ key, rule, placeId: fits.placeId, reserved: 500, used: 800 }); // 1000 used of the day
      expect((await reserve(a, key, rule, 1)).decision).toMatchObject({ allowed: false, refusedBy: 'budget', budget: { remaining: 0 } });
    });

    it('charges the reservation of a process that died (never settled, never renewed) at its estimate once it expires', async () => {
      const key = `dead-${randomUUID()}`;
      const rule = { tokensPerDay: 1000 };
      await reserve(a, key, rule, 700, 300); // its process dies: never settled
      const renewed = await reserve(b, `${key}-renewed`, rule, 700, 300);
      for (let i = 0; i < 4; i++) {
        await sleep(120);
        await b.renew(`${key}-renewed`, renewed.placeId, 300);
      }
      const after = await reserve(b, key, rule, 300);
      expect(after.decision).toMatchObject({ allowed: true, budget: { remaining: 0 }, expiredReservations: 1 }); // 700 charged + 300
      expect((await reserve(a, key, rule, 1)).decision).toMatchObject({ allowed: false, refusedBy: 'budget' });
      expect((await reserve(a, `${key}-renewed`, rule, 400)).decision).toMatchObject({ allowed: false, refusedBy: 'budget' }); // renewed: still held
      // settled after all (the process was only slow): corrected to what it used
      await a.settle({ key: `${key}-renewed`, rule, placeId: renewed.placeId, reserved: 700, used: 100 });
      expect((await reserve(a, `${key}-renewed`, rule, 900)).decision).toMatchObject({ allowed: true, budget: { remaining: 0 } });
    });

    it('undoes an admission by abort (its place, its request, its tokens of the key and of its model given back), once; an abort of one never admitted changes nothing', async () => {
      // abort is optional in the port, for a store whose admit cannot answer after its caller stopped waiting; every
      // store here can be asked over a channel that times out (Redis; the memory store from a worker, over IPC)
      const abort = (store: RateLimitStore, admission: RateLimitAdmission): Promise<void> => {
        if (store.abort === undefined) throw new Error(`${config.name} has no abort`);
        return store.abort(admission);
      };
      const key = `abort-${randomUUID()}`;
      const rule = { requestsPerMinute: 2, maxConcurrent: 1, tokensPerMinute: 1000, modelTokensPerMinute: 1000, tokensPerDay: 10_000 };
      const admission = (placeId: string) => ({ key, rule, placeId, placeTtlMs: 30_000, tokens: 100, model: 'm' });
      const whole = { allowed: true, requests: { remaining: 1 }, concurrency: { remaining: 0 }, tokens: { remaining: 900 }, budget: { remaining: 9900 } };
      expect(await a.admit(admission('a'))).toMatchObject(whole);
      await abort(b, admission('a'));
      expect(await a.admit(admission('b'))).toMatchObject(whole); // as if `a` had never been
      await abort(b, admission('a')); // again: nothing
      await abort(b, admission('never')); // never admitted: nothing
      expect(await a.admit(admission('c'))).toMatchObject({ allowed: false, refusedBy: 'concurrency' }); // `b` still holds its place
      await a.settle({ key, rule, placeId: 'b', model: 'm', reserved: 100, used: 100 });
      await abort(b, admission('b')); // settled: nothing to undo
      // neither its request (1 left would say so) nor its tokens (the minute's tokens would admit it) given back
      expect(await a.admit(admission('d'))).toMatchObject({ allowed: false, refusedBy: 'tokens', requests: { remaining: 0 } });
    });

    it('keeps each key to itself', async () => {
      const rule = { requestsPerMinute: 1, maxConcurrent: 1 };
      expect(await ask(a, `one-${randomUUID()}`, rule)).toMatchObject({ allowed: true });
      expect(await ask(b, `two-${randomUUID()}`, rule)).toMatchObject({ allowed: true });
    });
  });
}
