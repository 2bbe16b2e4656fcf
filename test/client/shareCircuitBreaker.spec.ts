/**
 * Shared circuit breakers (issue #31, item 5), two processes modelled as two breakers over one store and one clock:
 * a breaker one opens is open for the other once it has read the store; past the cool-down exactly one claims the
 * probe, whose failure opens it again for both and whose success closes it for both. A store that fails leaves each
 * process its own breaker (told once per outage, and again when it answers).
 */
import { createCircuitBreaker, type CircuitTransition } from '../../src/client/createCircuitBreaker';
import { shareCircuitBreaker, type SharedCircuitBreaker } from '../../src/client/shareCircuitBreaker';
import { shareRouteBreakers } from '../../src/client/shareRouteBreakers';
import type { BreakerStore } from '../../src/store/BreakerStore';
import { createMemoryBreakerStore } from '../../src/store/createMemoryBreakerStore';
import type { RouteTarget } from '../../src/client/RouteTarget';

const COOL_DOWN_MS = 1000;
let now = 0;
const clock = (): number => now;
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function sharedPair(store: BreakerStore, failed: (error: unknown) => void = () => undefined): { a: SharedCircuitBreaker; b: SharedCircuitBreaker; transitions: CircuitTransition[] } {
  const transitions: CircuitTransition[] = [];
  const make = (onTransition?: (t: CircuitTransition) => void): SharedCircuitBreaker =>
    shareCircuitBreaker(createCircuitBreaker({ consecutiveFailures: 2, distinctCallers: 1, coolDownMs: COOL_DOWN_MS, now: clock }), {
      store,
      name: 'chat/flaky',
      coolDownMs: COOL_DOWN_MS,
      probeTtlMs: 5000,
      failed,
      now: clock,
      ...(onTransition === undefined ? {} : { onTransition }),
    });
  return { a: make(), b: make((t) => transitions.push(t)), transitions };
}
const sync = async (store: BreakerStore, ...breakers: SharedCircuitBreaker[]): Promise<void> => {
  const states = await store.read(breakers.map((breaker) => breaker.name));
  breakers.forEach((breaker, i) => breaker.apply(states[i]));
};

describe('shareCircuitBreaker over one store', () => {
  beforeEach(() => (now = 0));

  it('an open breaker is open for the other process; one probe decides for both, failed then succeeded', async () => {
    const store = createMemoryBreakerStore(clock);
    const { a, b, transitions } = sharedPair(store);
    await sync(store, a, b);
    expect([a.state, b.state]).toEqual(['closed', 'closed']);
    a.failure();
    a.failure();
    expect(a.state).toBe('open');
    await settle(); // the trip reached the store
    await sync(store, a, b);
    expect(b.state).toBe('open');
    expect(b.tryAcquire()).toBe(false);
    expect(b.retryAt).toBe(COOL_DOWN_MS);
    expect(transitions).toEqual([{ from: 'closed', to: 'open' }]);

    now = COOL_DOWN_MS;
    expect([a.state, b.state]).toEqual(['half_open', 'half_open']);
    await Promise.all([a.prepare(), b.prepare()]);
    const acquired = [a.tryAcquire(), b.tryAcquire(), a.tryAcquire(), b.tryAcquire()];
    expect(acquired.filter(Boolean)).toHaveLength(1); // one probe, whichever claimed it
    const [prober, other] = acquired[0] === true ? [a, b] : [b, a];
    prober.failure();
    await settle();
    await sync(store, a, b);
    expect([prober.state, other.state]).toEqual(['open', 'open']);

    now = 2 * COOL_DOWN_MS;
    await Promise.all([a.prepare(), b.prepare()]);
    const second = [b.tryAcquire(), a.tryAcquire()];
    expect(second.filter(Boolean)).toHaveLength(1);
    (second[0] === true ? b : a).success();
    await settle();
    await sync(store, a, b);
    expect([a.state, b.state]).toEqual(['closed', 'closed']);
    expect(a.tryAcquire() && b.tryAcquire()).toBe(true);
  });

  it('a read that started before its own trip reached the store does not close it again', async () => {
    const memory = createMemoryBreakerStore(clock);
    let finishTrip = (): void => undefined;
    const store: BreakerStore = { ...memory, trip: (name, ms) => new Promise<void>((resolve) => (finishTrip = () => void memory.trip(name, ms).then(resolve))) };
    const { a } = sharedPair(store);
    await sync(store, a);
    const readAt = performance.now();
    const [stale] = await store.read([a.name]); // closed: read before the trip
    a.failure();
    a.failure();
    expect(a.state).toBe('open');
    a.apply(stale, readAt); // the trip is under way
    expect(a.state).toBe('open');
    finishTrip();
    await settle();
    a.apply(stale, readAt); // the trip has settled since the read started
    expect(a.state).toBe('open');
    await sync(store, a);
    expect(a.state).toBe('open');
  });

  it('a prober that dies frees the probe when its claim expires', async () => {
    const store = createMemoryBreakerStore(clock);
    const { a, b } = sharedPair(store);
    await store.trip('chat/flaky', COOL_DOWN_MS);
    now = COOL_DOWN_MS;
    await sync(store, a, b);
    await a.prepare();
    expect(a.tryAcquire()).toBe(true); // a probes, then dies: it never settles
    await sync(store, b);
    await b.prepare();
    expect(b.tryAcquire()).toBe(false);
    now += 5000; // the claim's TTL
    await sync(store, b);
    await b.prepare();
    expect(b.tryAcquire()).toBe(true);
  });

  it('a claim this process never used, once expired and the breaker tripped again by another probe, lets only one probe through', async () => {
    const store = createMemoryBreakerStore(clock);
    const { a, b } = sharedPair(store);
    await store.trip('chat/flaky', COOL_DOWN_MS);
    now = COOL_DOWN_MS;
    await sync(store, a, b);
    await a.prepare(); // a claims the probe, but no request of a reaches the target (its client went away)
    now += 5000; // the claim's TTL: the store frees the probe
    await sync(store, a, b);
    await b.prepare();
    expect(b.tryAcquire()).toBe(true); // b probes, and fails: open again for all
    b.failure();
    await settle();
    await sync(store, a, b);
    expect([a.state, b.state]).toEqual(['open', 'open']);
    now += COOL_DOWN_MS;
    await sync(store, a, b);
    await Promise.all([a.prepare(), b.prepare()]);
    const probes = [a.tryAcquire(), b.tryAcquire(), a.tryAcquire(), b.tryAcquire()];
    expect(probes.filter(Boolean)).toHaveLength(1); // one probe for all, not a's old claim beside b's new one
  });

  it('a store that fails: each process runs its own breaker, and the route tells it once per outage', async () => {
    let down = true;
    const memory = createMemoryBreakerStore(clock);
    const failing = <T>(work: () => Promise<T>): Promise<T> => (down ? Promise.reject(new Error('ECONNREFUSED')) : work());
    const store: BreakerStore = {
      scope: 'shared',
      trip: (name, ms) => failing(() => memory.trip(name, ms)),
      claimProbe: (name, ms) => failing(() => memory.claimProbe(name, ms)),
      reset: (name) => failing(() => memory.reset(name)),
      releaseProbe: (name) => failing(() => memory.releaseProbe(name)),
      read: (names) => failing(() => memory.read(names)),
      close: () => memory.close(),
    };
    const told: string[] = [];
    const sharing = shareRouteBreakers({ targets: [], breakerStore: store, onBreakerStoreError: (event) => told.push(event.state) });
    const { a, b } = sharedPair(store, sharing.failed);
    sharing.start([{ breaker: a }, { breaker: b }] as unknown as RouteTarget[]);
    await settle();
    a.failure();
    a.failure();
    await settle();
    expect(told).toEqual(['failing']); // the read and the trip failed: said once
    expect([a.state, b.state]).toEqual(['open', 'closed']); // per process meanwhile
    now = COOL_DOWN_MS;
    expect(a.tryAcquire()).toBe(true); // its own half-open probe
    a.success();
    down = false;
    await new Promise((resolve) => setTimeout(resolve, 600)); // the route reads again (every 250 ms)
    sharing.stop();
    expect(told).toEqual(['failing', 'recovered']);
    expect([a.state, b.state]).toEqual(['closed', 'closed']);
  });
});
