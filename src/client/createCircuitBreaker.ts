import { ConfigError } from '../core/errors.js';

/** A circuit breaker's state. */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** Options of {@link createCircuitBreaker}; every field has a default. */
export interface CircuitBreakerConfig {
  /** Opens after this many failures in a row (default 5). */
  consecutiveFailures?: number;
  /** Opens when at least this share of the last `window` outcomes failed (default 0.5; `1` never opens on the rate alone). */
  failureRate?: number;
  /** How many of the latest outcomes the rate is taken over (default 20). */
  window?: number;
  /** The rate applies only once the window holds this many outcomes (default 10, or `window` when smaller; at most `window`). */
  minimumCalls?: number;
  /** How long it stays open before one probe may pass (default 30 000 ms). */
  coolDownMs?: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** A state change of a {@link CircuitBreaker}. */
export interface CircuitTransition {
  /** The state before. */
  from: CircuitState;
  /** The state now. */
  to: CircuitState;
}

/** A circuit breaker of one target: a small state machine (closed → open → half-open → closed or open). */
export interface CircuitBreaker {
  /** The state now (an open breaker whose cool-down has passed reads `half_open`). */
  readonly state: CircuitState;
  /** Whether a request may go now: closed, or half-open with no probe under way (it becomes the probe). */
  tryAcquire(): boolean;
  /** A request succeeded: closes a half-open breaker, resets the count of failures in a row. */
  success(): void;
  /** A request failed: may open the breaker (a failed probe opens it again for a new cool-down). */
  failure(): void;
  /**
   * The half-open probe ended with neither outcome (aborted, the request's own fault): frees the probe's place. Call it
   * only for the probe (a request let through while `state` read `half_open`): it cannot tell requests apart, and one
   * let through while the breaker was closed has no place to give back.
   */
  release(): void;
  /** When the breaker, open, lets a probe through (epoch ms); `undefined` unless open. */
  readonly retryAt: number | undefined;
}

/** The breaker's defaults (see {@link CircuitBreakerConfig}). */
export const DEFAULT_CIRCUIT_BREAKER: Readonly<Required<Omit<CircuitBreakerConfig, 'now'>>> = Object.freeze({
  consecutiveFailures: 5,
  failureRate: 0.5,
  window: 20,
  minimumCalls: 10,
  coolDownMs: 30_000,
});

/**
 * Creates a circuit breaker: **closed** lets every request through and counts outcomes; `consecutiveFailures` in a
 * row, or a `failureRate` over the last `window` outcomes (once `minimumCalls` are in), **opens** it: no request
 * passes for `coolDownMs`; then it is **half-open**: one probe passes; its success closes the breaker (counts
 * reset), its failure opens it for another cool-down.
 *
 * @param config - Thresholds, cool-down, clock.
 * @param onTransition - Told of every state change (for metrics and logs).
 * @returns The breaker.
 * @throws ConfigError for a threshold that is not a positive integer, a `minimumCalls` above `window`, a rate outside
 *   (0, 1], a negative cool-down.
 */
export function createCircuitBreaker(
  config: CircuitBreakerConfig = {},
  onTransition?: (transition: CircuitTransition) => void,
): CircuitBreaker {
  const c = { ...DEFAULT_CIRCUIT_BREAKER, ...stripUndefined(config) };
  const now = config.now ?? Date.now;
  for (const key of ['consecutiveFailures', 'window', 'minimumCalls'] as const) {
    if (!Number.isInteger(c[key]) || c[key] < 1)
      throw new ConfigError(`circuit breaker: \`${key}\` must be a positive integer, got ${String(c[key])}; omit it for ${DEFAULT_CIRCUIT_BREAKER[key]}.`);
  }
  if (config.minimumCalls !== undefined && c.minimumCalls > c.window)
    throw new ConfigError(
      `circuit breaker: \`minimumCalls\` (${c.minimumCalls}) must be at most \`window\` (${c.window}): the window never holds more outcomes, so the failure rate could never apply.`,
    );
  // The default minimum (10) shrinks to a smaller window: else `{ window: 5 }` would silently turn the rate off.
  c.minimumCalls = Math.min(c.minimumCalls, c.window);
  if (!(c.failureRate > 0 && c.failureRate <= 1))
    throw new ConfigError(`circuit breaker: \`failureRate\` must be in (0, 1], got ${String(c.failureRate)}; omit it for 0.5.`);
  if (!(c.coolDownMs >= 0))
    throw new ConfigError(`circuit breaker: \`coolDownMs\` must be a number of ms ≥ 0, got ${String(c.coolDownMs)}; omit it for 30000.`);
  let state: CircuitState = 'closed';
  let openedAt = 0;
  let inARow = 0;
  let outcomes: boolean[] = []; // true = failure
  let probing = false;
  const move = (to: CircuitState): void => {
    if (to === state) return;
    const from = state;
    state = to;
    onTransition?.({ from, to });
  };
  const current = (): CircuitState => {
    if (state === 'open' && now() - openedAt >= c.coolDownMs) {
      probing = false;
      move('half_open');
    }
    return state;
  };
  const open = (): void => {
    openedAt = now();
    probing = false;
    move('open');
  };
  const record = (failed: boolean): void => {
    outcomes.push(failed);
    if (outcomes.length > c.window) outcomes = outcomes.slice(-c.window);
  };
  return {
    get state() {
      return current();
    },
    get retryAt() {
      return current() === 'open' ? openedAt + c.coolDownMs : undefined;
    },
    tryAcquire() {
      const s = current();
      if (s === 'closed') return true;
      if (s === 'open' || probing) return false;
      probing = true;
      return true;
    },
    success() {
      inARow = 0;
      if (current() === 'half_open') {
        outcomes = [];
        probing = false;
        move('closed');
        return;
      }
      record(false);
    },
    failure() {
      inARow++;
      const s = current();
      if (s === 'half_open') return open();
      if (s === 'open') return;
      record(true);
      const rate = outcomes.filter(Boolean).length / outcomes.length;
      if (inARow >= c.consecutiveFailures || (c.failureRate < 1 && outcomes.length >= c.minimumCalls && rate >= c.failureRate)) {
        outcomes = [];
        inARow = 0;
        open();
      }
    },
    release() {
      if (state === 'half_open') probing = false;
    },
  };
}

function stripUndefined(config: CircuitBreakerConfig): Partial<typeof DEFAULT_CIRCUIT_BREAKER> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) if (value !== undefined && key !== 'now') out[key] = value;
  return out;
}
