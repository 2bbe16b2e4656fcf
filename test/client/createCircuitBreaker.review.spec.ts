/**
 * createCircuitBreaker — defects found in review: a `window` smaller than `minimumCalls` (10 by default) silently
 * turned the failure rate off: `{ window: 5 }` never opened on the rate, whatever the failures; `failureRate: 1`,
 * documented as never opening on the rate alone, opened once the window was all failures.
 */
import { ConfigError } from '../../src/core/errors';
import { createCircuitBreaker } from '../../src/client/createCircuitBreaker';

describe('createCircuitBreaker (review)', () => {
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
