import { Observable } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError } from '../core/errors.js';
import { isTransientError } from './isTransientError.js';
import { retryOnTransient, type RetryOnTransientConfig } from './retryOnTransient.js';
import { DEFAULT_RETRY_POLICY } from '../core/retryPolicy.js';

/** One source of {@link failover}: a name and a factory of the (cold) source. */
export interface FailoverTarget<T> {
  /** The target's name, reported in {@link FailoverAttempt}s. */
  name: string;
  /** Makes the source of one attempt (called once per attempt, at subscription). */
  source: () => Observable<T>;
  /** The target's own retry budget (`retryOnTransient`), applied around `source()`; absent: none (the source retries itself, or not). */
  retry?: RetryOnTransientConfig | number;
}

/** What {@link failover} reports of each target it tried or skipped. */
export interface FailoverAttempt {
  /** The target's name. */
  target: string;
  /** Its position in the list. */
  index: number;
  /** `ok`: it delivered values; `failed`: it failed before its first value; `skipped`: `config.skip` said so. */
  outcome: 'ok' | 'failed' | 'skipped';
  /** The error it failed with (`failed` only). */
  error?: unknown;
}

/** Options of {@link failover}. */
export interface FailoverConfig {
  /**
   * Where to go after target `index` failed before its first value with `error`: the index of the next target to try
   * (greater than `index`), or `undefined` to stop and surface `error`. Default: `index + 1` when
   * `isTransientError(error)` under the default retry policy, else `undefined`.
   */
  next?: (error: unknown, index: number) => number | undefined;
  /** Leaves a target out without trying it (an open circuit breaker); reported as `skipped`. */
  skip?: (index: number) => boolean;
  /** The error when every target was skipped (default: a `ConfigError` saying so). */
  noTarget?: () => unknown;
  /** Called for each target tried or skipped, in order: at its first value (`ok`), its failure, or its skip. */
  onAttempt?: (attempt: FailoverAttempt) => void;
}

/**
 * Tries an ordered list of sources — a primary and its fallbacks — until one delivers: a target that fails before
 * its first value (after its own retries) hands over to the next one; once a target has delivered a value, it is the
 * answer, and its later errors pass through (what a cut mid-answer needs is `continueAfterCut`).
 *
 * ```text
 * targets[0]:   --#                     (503, after its own retries)
 * targets[1]:     --a--b--|
 * failover:     ----a--b--|
 *
 * targets[0]:   --a--#                  (cut after a value)
 * failover:     --a--#                  (not handed over: a would be sent twice)
 *
 * targets[0]:   --#                     (400: the request's fault, `next` says stop)
 * failover:     --#
 * ```
 *
 * 1. Targets are tried in order, one at a time; `skip(i)` leaves one out (reported `skipped`).
 * 2. A target's failure before its first value asks `next(error, i)`: a later index continues there (targets in
 *    between are not tried: e.g. to reach a target with a larger context window), `undefined` surfaces the error.
 * 3. No target left: the last error a target failed with; every target skipped: `noTarget()`.
 * 4. Each target's `retry` wraps only that target (its own budget). Unsubscribing ends the current attempt.
 *
 * ## Example
 * ```ts
 * failover([
 *   { name: 'deepseek', source: () => deepseek.chunks(request), retry: 1 },
 *   { name: 'moonshot', source: () => moonshot.chunks(request) },
 * ]).pipe(toOutputChunks());
 * ```
 *
 * @param targets - The sources, primary first.
 * @param config - Where to go after a failure, what to skip, and a report of each attempt.
 * @returns An Observable that mirrors the first target that delivers.
 * @throws ConfigError when `targets` is empty.
 */
export function failover<T>(targets: readonly FailoverTarget<T>[], config: FailoverConfig = {}): Observable<T> {
  if (targets.length === 0) throw new ConfigError('failover: `targets` is empty; pass at least one { name, source }.');
  const wrapped = targets.map((target) =>
    target.retry === undefined ? target.source : () => target.source().pipe(retryOnTransient<T>(target.retry)),
  );
  const next = config.next ?? ((error: unknown, index: number) => (isTransientError(error, DEFAULT_RETRY_POLICY) ? index + 1 : undefined));
  return new Observable<T>((subscriber) => {
    let lastError: unknown;
    let tried = false;
    const report = (attempt: FailoverAttempt): void => config.onAttempt?.(attempt);
    const start = (from: number): void => {
      let index = from;
      while (index < targets.length && config.skip?.(index) === true) {
        report({ target: targets[index]!.name, index, outcome: 'skipped' });
        index++;
      }
      if (index >= targets.length) {
        subscriber.error(tried ? lastError : (config.noTarget?.() ?? new ConfigError('failover: every target was skipped.')));
        return;
      }
      tried = true;
      const target = targets[index]!;
      let delivered = false;
      // The operator's own subscriber, added to the result's: unsubscribing ends the current attempt, and a throw of a
      // callback (`next`, `skip`, `onAttempt`) errors the result instead of being lost as an unhandled error.
      wrapped[index]!().subscribe(
        createOperatorSubscriber<T>(
          subscriber,
          (value) => {
            if (!delivered) {
              delivered = true;
              report({ target: target.name, index, outcome: 'ok' });
            }
            subscriber.next(value);
          },
          undefined,
          (error) => {
            if (delivered) return subscriber.error(error);
            report({ target: target.name, index, outcome: 'failed', error });
            lastError = error;
            const to = next(error, index);
            if (to === undefined || to <= index) return subscriber.error(error);
            start(to);
          },
        ),
      );
    };
    start(0);
  });
}
