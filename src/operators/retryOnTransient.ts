import { Observable, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import { ConfigError } from '../core/errors.js';
import { abortableTimer } from './abortableTimer.js';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { computeRetryDelay } from './computeRetryDelay.js';
import { isTransientError } from './isTransientError.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../core/retryPolicy.js';

/** What `onRetry` is told before each retry. */
export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  /** The wait before it, in ms. */
  delayMs: number;
  /** The error that caused it. */
  error: unknown;
}

/** Options of {@link retryOnTransient}: any field of {@link RetryPolicy} (defaults: {@link DEFAULT_RETRY_POLICY}) plus hooks. */
export interface RetryOnTransientConfig extends Partial<RetryPolicy> {
  /** Where the delays run (default `asyncScheduler`; a `TestScheduler` runs them in virtual time). */
  scheduler?: SchedulerLike;
  /** The jitter source, `[0, 1)` (default `Math.random`). */
  random?: () => number;
  /** Called before each retry (for logs and metrics). */
  onRetry?: (event: RetryEvent) => void;
  /** Decides transience instead of the policy's tables (the "only before the first value" rule still holds). */
  isTransient?: (error: unknown) => boolean;
  /** The caller's cancellation: aborting it during a wait ends the result at once with an `AbortedError`, no further attempt. */
  signal?: AbortSignal;
  /**
   * Asked before each retry the policy allows (its attempt, wait and error): `false` surfaces the error instead — a
   * caller's budget of attempts or time (a retry whose wait would end past a deadline is not worth waiting for).
   */
  shouldRetry?: (event: RetryEvent) => boolean;
}

/**
 * Re-subscribes to the source after a transient failure, but only while nothing has been emitted downstream.
 *
 * The intuition: a request that failed before it produced anything can be sent again; once a value went out, a
 * retry would duplicate it, so the error surfaces.
 *
 * ```text
 * source (1st):  --#              (503)
 * source (2nd):        --#        (ECONNRESET)
 * source (3rd):              --a--b--|
 * result:        -------------a--b--|     (waits: jittered backoff, or the server's Retry-After)
 *
 * source:        --a--#           (reset after a value)
 * result:        --a--#           (not retried: no duplicated content)
 * ```
 *
 * 1. Retries what `isTransientError` accepts under the policy: `NetworkError`; `UpstreamHttpError` 408, 409, 429,
 *    500, 502, 503, 504 or an overload type; a connect `TimeoutError`; … Never 400/401/402/403/404/422, a quota
 *    used up (`exceeded_current_quota_error`, `insufficient_quota`, even on a 429), a headers/first-chunk/idle
 *    `TimeoutError`, `AbortedError`, `ConfigError`, `StreamProtocolError`, `ToolCallError`.
 * 2. Only while the current subscription has emitted nothing; afterwards every error passes through.
 * 3. At most `count` retries (default 2), each only if `shouldRetry` (when given) agrees. The wait is the server's
 *    hint (`retryAfterMs`) when it is at most `maxRetryAfterMs`; a longer hint surfaces the error; without a hint,
 *    full-jitter exponential backoff capped at `maxDelayMs`; never less than `minDelayMs` (a `Retry-After: 0` too).
 * 4. Waits run on `config.scheduler`; unsubscribing during a wait cancels it and sends no further request. An abort
 *    of `config.signal` during a wait (or before it) ends the result at once with an `AbortedError` — a 5 s
 *    `Retry-After` does not delay the caller's cancellation.
 *
 * ## Example
 * ```ts
 * requestCompletion(request, config).pipe(parseSse(), decodeChunk(), retryOnTransient({ count: 3 }));
 * ```
 *
 * @param config - Policy overrides, a scheduler, a jitter source, a hook; or just the retry count.
 * @returns An operator that mirrors the source with transient failures retried.
 */
export function retryOnTransient<T>(config: RetryOnTransientConfig | number = {}): MonoTypeOperatorFunction<T> {
  const options: RetryOnTransientConfig = typeof config === 'number' ? { count: config } : config;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...stripUndefined(options) };
  if (!Number.isInteger(policy.count) || policy.count < 0) {
    throw new ConfigError(
      `retryOnTransient: \`count\` must be a non-negative integer, got ${String(policy.count)}. Use 0 to disable retries.`,
    );
  }
  // A NaN (or a string from a config file) would make every wait NaN: the timer fires at once, the burst the floor
  // exists to prevent.
  if (typeof policy.minDelayMs !== 'number' || !Number.isFinite(policy.minDelayMs) || policy.minDelayMs < 0) {
    throw new ConfigError(
      `retryOnTransient: \`minDelayMs\` must be a finite number of ms ≥ 0, got ${String(policy.minDelayMs)}; omit it for ${DEFAULT_RETRY_POLICY.minDelayMs} (0: no floor).`,
    );
  }
  const scheduler = options.scheduler ?? asyncScheduler;
  const random = options.random ?? Math.random;
  const transient = options.isTransient ?? ((error: unknown) => isTransientError(error, policy));
  if (policy.count === 0) return (source) => source;
  // One subscriber per attempt, forwarding to the result's (no `tap` + `retry` hops per value): the bookkeeping runs
  // only on an error, and after the first value nothing is retried.
  return (source) =>
    new Observable<T>((subscriber) => {
      let emitted = false;
      let attempt = 0;
      const onValue = (value: T): void => {
        emitted = true;
        subscriber.next(value);
      };
      const onError = (error: unknown): void => {
        if (emitted || attempt >= policy.count || !transient(error)) return subscriber.error(error);
        attempt += 1;
        const hint = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
        const delayMs = computeRetryDelay(attempt, typeof hint === 'number' ? hint : undefined, policy, random);
        if (delayMs === undefined || options.shouldRetry?.({ attempt, delayMs, error }) === false) return subscriber.error(error);
        options.onRetry?.({ attempt, delayMs, error });
        subscriber.add(
          abortableTimer(delayMs, scheduler, options.signal).subscribe({
            next: subscribeToSource,
            error: (reason: unknown) => subscriber.error(reason),
          }),
        );
      };
      const subscribeToSource = (): void => {
        source.subscribe(createOperatorSubscriber<T>(subscriber, onValue, undefined, onError));
      };
      subscribeToSource();
    });
}

function stripUndefined(options: RetryOnTransientConfig): Partial<RetryPolicy> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_RETRY_POLICY) as Array<keyof RetryPolicy>)
    if (options[key] !== undefined) out[key] = options[key];
  return out as Partial<RetryPolicy>;
}
