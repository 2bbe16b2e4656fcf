import {
  asyncScheduler,
  Observable,
  tap,
  type MonoTypeOperatorFunction,
  type SchedulerAction,
  type SchedulerLike,
} from 'rxjs';
import { ConfigError } from '../core/errors.js';

/**
 * Emits `beat` whenever the source has been silent for `intervalMs`, to keep idle connections alive.
 *
 * ```text
 * source:                 ------a-------------b--|
 * withHeartbeat(3, 'p'):  ---p--a--p--p--p--p-b--|     (no beat at or after the end)
 * ```
 *
 * 1. The first beat comes `intervalMs` after subscription when the source has not emitted yet.
 * 2. Every source value restarts the silence; during a long silence a beat comes every `intervalMs`.
 * 3. Values, errors and completion pass through unchanged; completion, error and unsubscription stop the timer.
 * 4. Source values cost one `scheduler.now()` each: one timer runs per interval, not one per value.
 *
 * @param intervalMs - The silence, in milliseconds, after which a beat is emitted (a positive finite number).
 * @param beat - The value to emit (for SSE, a comment frame such as `': ping\n\n'`).
 * @param scheduler - Where the timer runs (default `asyncScheduler`; a `TestScheduler` in marble tests).
 * @returns An operator that mirrors the source with beats in its silences.
 * @throws ConfigError when `intervalMs` is not a positive finite number.
 */
export function withHeartbeat<T>(
  intervalMs: number,
  beat: T,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  if (!(typeof intervalMs === 'number' && Number.isFinite(intervalMs) && intervalMs > 0)) {
    throw new ConfigError(
      `withHeartbeat: \`intervalMs\` must be a positive number of milliseconds, got ${String(intervalMs)}.`,
    );
  }
  return (source) =>
    new Observable<T>((subscriber) => {
      let last = scheduler.now();
      // One self-rescheduling action: when it fires it checks how long the source has really been silent.
      const tick = function (this: SchedulerAction<undefined>): void {
        const silentFor = scheduler.now() - last;
        if (silentFor >= intervalMs) {
          last = scheduler.now();
          subscriber.next(beat);
          this.schedule(undefined, intervalMs);
        } else {
          this.schedule(undefined, intervalMs - silentFor);
        }
      };
      subscriber.add(scheduler.schedule(tick, intervalMs));
      // Subscribing the downstream subscriber itself chains the unsubscription (a synchronous firehose stops).
      source.pipe(tap(() => (last = scheduler.now()))).subscribe(subscriber);
    });
}
