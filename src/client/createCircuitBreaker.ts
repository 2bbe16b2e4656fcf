import { ConfigError } from '../core/errors.js';

/** A circuit breaker's state. */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** Options of a route target's circuit breaker (`ChatRouteConfig.breaker`); every field has a default. */
export interface CircuitBreakerConfig {
  /** Opens after this many failures in a row (default 5). */
  consecutiveFailures?: number;
  /** Opens when at least this share of the last `window` outcomes failed (default 0.5; `1` never opens on the rate alone). */
  failureRate?: number;
  /** How many of the latest outcomes the rate is taken over (default 20). */
  window?: number;
  /** The rate applies only once the window holds this many outcomes (default 10, or `window` when smaller; at most `window`). */
  minimumCalls?: number;
  /** How long it stays open before one probe may pass (default 5 000 ms). */
  coolDownMs?: number;
  /**
   * It opens only when the failures that open it came from at least this many distinct callers (the `caller` of
   * `failure`; at most `consecutiveFailures` for a run of failures): one client's requests that fail for their own
   * content cannot open it for everyone (default 2; `1`: any failures). Failures without a caller are not held back.
   */
  distinctCallers?: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** A state change of a route target's circuit breaker (`ChatRouteBreakerEvent`). */
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
  /**
   * A request failed: may open the breaker (a failed probe opens it again for a new cool-down).
   *
   * @param caller - Who the request was for (an opaque id, e.g. a hashed API key): failures of fewer than
   *   `distinctCallers` callers never open it. Omitted: nobody to tell apart, the failure counts as for any caller.
   */
  failure(caller?: string): void;
  /**
   * The half-open probe ended with neither outcome (aborted, the request's own fault): frees the probe's place. Call it
   * only for the probe (a request let through while `state` read `half_open`): it cannot tell requests apart, and one
   * let through while the breaker was closed has no place to give back.
   */
  release(): void;
  /** When the breaker, open, lets a probe through (epoch ms); `undefined` unless open. */
  readonly retryAt: number | undefined;
}

/**
 * The breaker's defaults (see {@link CircuitBreakerConfig}).
 *
 * | field | default | why |
 * |---|---|---|
 * | `consecutiveFailures` | 5 | one failed request is a blip (its target's retries and the fallback ride it out); five in a row is an outage |
 * | `failureRate` / `window` / `minimumCalls` | 0.5 / 20 / 10 | a target failing every other request is unhealthy even between successes; ten outcomes before judging |
 * | `coolDownMs` | 5 000 | a probe is one attempt (never retried) and, when it fails, its caller moves on to the next target at once: probing a dead target every 5 s costs one fast failure per 5 s, and a target that recovers serves again within about one cool-down plus the gap between two requests (at one request every 4 s: within ~8 s, where 30 s missed a one-minute outage's recovery entirely) |
 * | `distinctCallers` | 2 | a failure specific to one client's requests (a body the provider chokes on) must not take the target away from everyone |
 */
export const DEFAULT_CIRCUIT_BREAKER: Readonly<Required<Omit<CircuitBreakerConfig, 'now'>>> = Object.freeze({
  consecutiveFailures: 5,
  failureRate: 0.5,
  window: 20,
  minimumCalls: 10,
  coolDownMs: 5_000,
  distinctCallers: 2,
});

/**
 * Creates a circuit breaker: **closed** lets every request through and counts outcomes; `consecutiveFailures` in a
 * row, or a `failureRate` over the last `window` outcomes (once `minimumCalls` are in), **opens** it — when those
 * failures came from at least `distinctCallers` callers: no request passes for `coolDownMs`; then it is
 * **half-open**: one probe passes; its success closes the breaker (counts reset), its failure opens it for another
 * cool-down. What it keeps of callers is bounded by `window` and `consecutiveFailures`, whoever calls.
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
  for (const key of ['consecutiveFailures', 'window', 'minimumCalls', 'distinctCallers'] as const) {
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
    throw new ConfigError(`circuit breaker: \`coolDownMs\` must be a number of ms ≥ 0, got ${String(c.coolDownMs)}; omit it for 5000.`);
  let state: CircuitState = 'closed';
  let openedAt = 0;
  // The callers of the failures in a row, and the latest outcomes (a caller for a failure, `OK` for a success):
  // bounded by `consecutiveFailures` and `window`, whoever calls.
  let inARow: (string | symbol)[] = [];
  let outcomes: (string | symbol)[] = [];
  let probing = false;
  const spread = (callers: readonly (string | symbol)[], needed: number): boolean => {
    const seen = new Set<string | symbol>();
    for (const caller of callers) {
      if (caller === ANYONE) return true;
      if (caller !== OK && seen.add(caller).size >= needed) return true;
    }
    return needed <= 1;
  };
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
  const record = (outcome: string | symbol): void => {
    outcomes.push(outcome);
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
      inARow = [];
      if (current() === 'half_open') {
        outcomes = [];
        probing = false;
        move('closed');
        return;
      }
      record(OK);
    },
    failure(caller) {
      const key = caller ?? ANYONE;
      inARow.push(key);
      if (inARow.length > c.consecutiveFailures) inARow = inARow.slice(-c.consecutiveFailures);
      const s = current();
      if (s === 'half_open') return open();
      if (s === 'open') return;
      record(key);
      const failures = outcomes.filter((o) => o !== OK);
      const rate = failures.length / outcomes.length;
      const byRow = inARow.length >= c.consecutiveFailures && spread(inARow, Math.min(c.distinctCallers, c.consecutiveFailures));
      const byRate = c.failureRate < 1 && outcomes.length >= c.minimumCalls && rate >= c.failureRate && spread(failures, c.distinctCallers);
      if (byRow || byRate) {
        outcomes = [];
        inARow = [];
        open();
      }
    },
    release() {
      if (state === 'half_open') probing = false;
    },
  };
}

/** A success among the outcomes. */
const OK = Symbol('ok');
/** The caller of a failure reported without one. */
const ANYONE = Symbol('anyone');

function stripUndefined(config: CircuitBreakerConfig): Partial<typeof DEFAULT_CIRCUIT_BREAKER> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) if (value !== undefined && key !== 'now') out[key] = value;
  return out;
}
