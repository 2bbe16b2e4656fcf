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
