/** createMemoryRateLimitStore: the RateLimitStore contract in one process, and its memory bound. */
import { createMemoryRateLimitStore } from '../../src/store/createMemoryRateLimitStore';
import { rateLimitStoreContractSuite } from '../helpers/rateLimitStoreContractSuite';

rateLimitStoreContractSuite({
  name: 'createMemoryRateLimitStore',
  views: () => {
    const store = createMemoryRateLimitStore();
    return [store, store];
  },
});

describe('createMemoryRateLimitStore', () => {
  it('forgets a key once its quota is whole and its places are free: a client-chosen key is not kept', async () => {
    let now = 0;
    const store = createMemoryRateLimitStore(() => now);
    for (let i = 0; i < 1000; i++) await store.admit({ key: `client-${i}`, rule: { requestsPerMinute: 60, maxConcurrent: 2 }, placeId: `p${i}`, placeTtlMs: 1000 });
    expect(store.size).toBe(1000);
    now = 61_000; // every quota whole, every place expired: the next admission sweeps them
    await store.admit({ key: 'another', rule: { requestsPerMinute: 60 }, placeId: 'x', placeTtlMs: 1000 });
    expect(store.size).toBe(1);
    await store.release('another', 'x');
    now = 62_000; // its quota whole again: asked again, it is dropped too
    await store.admit({ key: 'another', rule: {}, placeId: 'y', placeTtlMs: 1000 });
    expect(store.size).toBe(0);
  });
});
