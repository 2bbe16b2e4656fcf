import { ConfigError } from '../../src/core/errors';
import { createCircuitBreaker, DEFAULT_CIRCUIT_BREAKER, type CircuitTransition } from '../../src/client/createCircuitBreaker';

describe('createCircuitBreaker', () => {
  let now = 0;
  const clock = { now: () => now };
  beforeEach(() => (now = 0));

  it('opens after consecutive failures, skips while open, lets one probe through after the cool-down, closes on its success', () => {
    const transitions: CircuitTransition[] = [];
    const breaker = createCircuitBreaker({ consecutiveFailures: 3, coolDownMs: 1000, ...clock }, (t) => transitions.push(t));
    breaker.failure();
    breaker.failure();
    expect(breaker.state).toBe('closed');
    breaker.failure();
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
    expect(breaker.retryAt).toBe(1000);
    now = 1000;
    expect(breaker.state).toBe('half_open');
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false); // one probe at a time
    breaker.success();
    expect(breaker.state).toBe('closed');
    expect(transitions).toEqual([
      { from: 'closed', to: 'open' },
      { from: 'open', to: 'half_open' },
      { from: 'half_open', to: 'closed' },
    ]);
  });

  it('a failed probe opens it for another cool-down; a released probe (neither outcome) frees the slot', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, coolDownMs: 100, ...clock });
    breaker.failure();
    now = 100;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.release();
    expect(breaker.tryAcquire()).toBe(true);
    breaker.failure();
    expect(breaker.state).toBe('open');
    now = 150;
    expect(breaker.tryAcquire()).toBe(false);
    now = 200;
    expect(breaker.tryAcquire()).toBe(true);
  });

  it('opens on the failure rate over the window once minimumCalls are in, not before; successes reset the run of failures', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 100, failureRate: 0.5, window: 10, minimumCalls: 6, ...clock });
    for (let i = 0; i < 2; i++) {
      breaker.failure();
      breaker.success();
    }
    breaker.failure();
    expect(breaker.state).toBe('closed'); // 3 of 5: under minimumCalls
    breaker.failure();
    expect(breaker.state).toBe('open'); // 4 of 6
  });

  it('has documented defaults and refuses bad settings with a ConfigError', () => {
    expect(DEFAULT_CIRCUIT_BREAKER).toEqual({ consecutiveFailures: 5, failureRate: 0.5, window: 20, minimumCalls: 10, coolDownMs: 5_000, distinctCallers: 2 });
    expect(() => createCircuitBreaker({ distinctCallers: 0 })).toThrow(/distinctCallers/);
    expect(() => createCircuitBreaker({ consecutiveFailures: 0 })).toThrow(ConfigError);
    expect(() => createCircuitBreaker({ failureRate: 1.5 })).toThrow(/failureRate/);
    expect(() => createCircuitBreaker({ coolDownMs: -1 })).toThrow(/coolDownMs/);
  });
});

describe('createCircuitBreaker: the failure rate against window and minimumCalls', () => {
  it('a window smaller than the default minimumCalls: the rate applies once the window is full', () => {
    const breaker = createCircuitBreaker({ window: 4, failureRate: 0.5, consecutiveFailures: 100, now: () => 0 });
    for (let i = 0; i < 10 && breaker.state === 'closed'; i++) {
      breaker.failure();
      breaker.success();
    }
    expect(breaker.state).toBe('open'); // 2 failures of the last 4: 50 %
  });

  it('failureRate 1 never opens on the rate alone (as documented): only consecutiveFailures does', () => {
    const breaker = createCircuitBreaker({ failureRate: 1, consecutiveFailures: 30, window: 10, minimumCalls: 10, now: () => 0 });
    for (let i = 0; i < 29; i++) breaker.failure();
    expect(breaker.state).toBe('closed'); // 10 of the last 10 failed: the rate is 1, still not a reason
    breaker.failure();
    expect(breaker.state).toBe('open'); // 30 in a row
  });

  it('refuses a minimumCalls larger than the window (the rate could never apply) with a ConfigError', () => {
    expect(() => createCircuitBreaker({ window: 5, minimumCalls: 6 })).toThrow(ConfigError);
    expect(() => createCircuitBreaker({ window: 5, minimumCalls: 6 })).toThrow(/minimumCalls.*window/);
    expect(() => createCircuitBreaker({ window: 5, minimumCalls: 5 })).not.toThrow();
  });
});

describe('createCircuitBreaker: a primary down for a minute, with the defaults (virtual time)', () => {
  it("the catalogue's load (one request every 4 s for 76 s, down until 60 s): opens, probes one attempt at a time, and the recovered primary serves again within 10 s of recovery", () => {
    let now = 0;
    const transitions: Array<CircuitTransition & { at: number }> = [];
    const breaker = createCircuitBreaker({ now: () => now }, (t) => transitions.push({ ...t, at: now }));
    const served: number[] = [];
    let probes = 0;
    for (now = 0; now <= 76_000; now += 4_000) {
      const probe = breaker.state === 'half_open';
      if (!breaker.tryAcquire()) continue; // skipped: the fallback answers
      if (probe) probes++;
      if (now < 60_000) breaker.failure(`client-${now % 3}`);
      else {
        breaker.success();
        served.push(now);
      }
    }
    expect(served[0]! - 60_000).toBeLessThanOrEqual(10_000);
    expect(served[served.length - 1]).toBe(76_000); // and every request after
    expect(transitions[0]).toEqual({ from: 'closed', to: 'open', at: 16_000 }); // 5 failures in a row
    expect(transitions[transitions.length - 1]).toMatchObject({ from: 'half_open', to: 'closed' });
    // Each probe of the outage failed once and reopened it: one probe per cool-down, not a request every 4 s.
    expect(probes).toBeLessThanOrEqual(Math.ceil((60_000 - 16_000) / DEFAULT_CIRCUIT_BREAKER.coolDownMs) + 1);
    expect(transitions.filter((t) => t.to === 'open').length).toBe(probes); // the first opening, then one per failed probe
  });
});

describe('createCircuitBreaker: failures of one caller do not open it (distinctCallers)', () => {
  it('consecutive failures of one caller never open it; a second caller failing too does', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 3, now: () => 0 });
    for (let i = 0; i < 50; i++) breaker.failure('key:a');
    expect(breaker.state).toBe('closed');
    breaker.failure('key:b');
    expect(breaker.state).toBe('open'); // the last 3 in a row: a, a, b
  });

  it('the failure rate counts only when its failures come from enough callers; a caller-less failure is for anyone (as before)', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 100, window: 10, minimumCalls: 4, distinctCallers: 3, now: () => 0 });
    for (let i = 0; i < 20; i++) {
      breaker.failure(i % 2 === 0 ? 'key:a' : 'key:b');
      breaker.success();
    }
    expect(breaker.state).toBe('closed'); // 50 % failed, but by two callers of the three needed
    breaker.failure('key:c');
    expect(breaker.state).toBe('open');
    const anonymous = createCircuitBreaker({ consecutiveFailures: 2, now: () => 0 });
    anonymous.failure();
    anonymous.failure();
    expect(anonymous.state).toBe('open');
    const single = createCircuitBreaker({ consecutiveFailures: 2, distinctCallers: 1, now: () => 0 });
    single.failure('key:a');
    single.failure('key:a');
    expect(single.state).toBe('open');
  });

  it('keeps a bounded record of callers, however many call', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 5, window: 20, distinctCallers: 50, failureRate: 1, now: () => 0 });
    for (let i = 0; i < 10_000; i++) breaker.failure(`key:${i % 3}`);
    expect(breaker.state).toBe('closed');
    // No retained state grows with the calls: a fresh breaker and this one agree on what comes next.
    const probe = createCircuitBreaker({ consecutiveFailures: 5, window: 20, distinctCallers: 5, now: () => 0 });
    for (let i = 0; i < 100_000; i++) probe.failure(i % 2 === 0 ? 'key:a' : 'key:b');
    expect(probe.state).toBe('closed');
    for (const k of ['c', 'd', 'e']) probe.failure(`key:${k}`);
    expect(probe.state).toBe('open');
  });
});
