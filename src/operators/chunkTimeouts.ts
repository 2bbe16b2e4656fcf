import { asyncScheduler, Observable, type MonoTypeOperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import { TimeoutError } from '../core/errors.js';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import type { DemandGate } from '../core/createDemandGate.js';

/** Options of {@link chunkTimeouts}, in milliseconds; absent or `0` means no deadline. */
export interface ChunkTimeoutsConfig {
  /** From subscription to the first value. */
  firstChunk?: number;
  /**
   * Before the first value: the longest stretch without a sign of life (`alive`), from subscription — a silent
   * source is given up early while one that says it is still there (SSE keep-alive comments) waits for `firstChunk`.
   */
  silence?: number;
  /** When the source last showed a sign of life, on `scheduler`'s clock (e.g. its latest bytes); default: never. */
  alive?: () => number | undefined;
  /** Between two values after the first. */
  idle?: number;
  /** From subscription to completion. */
  total?: number;
  /** While this gate is closed the consumer, not the upstream, is slow: a `firstChunk`/`idle` deadline that passes then is re-armed. */
  demand?: DemandGate;
  /** Where the timers run (default `asyncScheduler`; a `TestScheduler` runs them in virtual time). */
  scheduler?: SchedulerLike;
}

/**
 * Errors with a typed `TimeoutError` when the first value, the next value, or the end takes too long; the source is
 * unsubscribed, which aborts the upstream request.
 *
 * Apply it to the chunk stream (after `decodeChunk`): SSE comments never reach it, so DeepSeek's `: keep-alive`
 * lines reset neither deadline.
 *
 * ```text
 * source:                                 ----a--b-------------
 * chunkTimeouts({ firstChunk: 6, idle: 5 })
 * result:                                 ----a--b----#         (TimeoutError 'idle')
 *
 * source:                                 --------------
 * result:                                 ------#               (TimeoutError 'first_chunk')
 * ```
 *
 * 1. No value within `firstChunk` of subscription → `TimeoutError('first_chunk')`; nor, with `silence`, within
 *    `silence` of subscription or of the source's latest sign of life (`alive()`) → `TimeoutError('first_chunk')`
 *    (its `timeoutMs` the silence).
 * 2. After a value, no next value within `idle` → `TimeoutError('idle')` (the first value is not subject to `idle`).
 * 3. Not complete within `total` of subscription → `TimeoutError('total')`.
 * 4. With `demand`, a first-chunk or idle deadline that passes while the gate is closed starts over.
 * 5. Values, errors and completion otherwise pass through; every timer is released on teardown.
 *
 * ## Example
 * ```ts
 * requestCompletion(req, cfg).pipe(parseSse(), decodeChunk(), chunkTimeouts({ firstChunk: 600_000, idle: 60_000 }));
 * ```
 *
 * @param config - The deadlines, the demand gate and a scheduler.
 * @returns An operator that mirrors the source within the deadlines.
 */
export function chunkTimeouts<T>(config: ChunkTimeoutsConfig): MonoTypeOperatorFunction<T> {
  const scheduler = config.scheduler ?? asyncScheduler;
  const firstChunk = positive(config.firstChunk);
  const silence = positive(config.silence);
  const idle = positive(config.idle);
  const total = positive(config.total);
  if (firstChunk === undefined && silence === undefined && idle === undefined && total === undefined) return (source) => source;
  return (source) =>
    new Observable<T>((subscriber) => {
      // One pending check at a time instead of a timer re-armed per value: a value only records its time, and the
      // check, when it runs, compares `scheduler.now()` with it and schedules itself for the rest of the deadline.
      let started = false; // a value arrived: the idle deadline applies, no longer the first-chunk one
      let since = scheduler.now(); // start of the current deadline: subscription, the latest value, or a re-arm
      let deadline: Subscription | undefined;
      const check = (): void => {
        deadline = undefined;
        const now = scheduler.now();
        // Before the first value, the silence deadline runs beside the first-chunk one: whichever ends first.
        let ms = started ? idle : firstChunk;
        let left = ms === undefined ? Infinity : since + ms - now;
        if (!started && silence !== undefined) {
          const quietLeft = Math.max(since, config.alive?.() ?? since) + silence - now;
          if (quietLeft < left) [ms, left] = [silence, quietLeft];
        }
        if (ms === undefined) return;
        if (left > 0) {
          deadline = scheduler.schedule(check, left);
        } else if (config.demand !== undefined && !config.demand.isOpen) {
          since = now; // the consumer is slow, not the upstream: the deadline starts over
          deadline = scheduler.schedule(check, ms);
        } else {
          subscriber.error(new TimeoutError(started ? 'idle' : 'first_chunk', ms));
        }
      };
      const before = Math.min(firstChunk ?? Infinity, silence ?? Infinity);
      if (before !== Infinity) deadline = scheduler.schedule(check, before);
      // A value records its time; the first one also hands over from the first-chunk deadline to the idle one.
      const onValue = (value: T): void => {
        since = scheduler.now();
        if (!started) {
          started = true;
          deadline?.unsubscribe();
          deadline = idle === undefined ? undefined : scheduler.schedule(check, idle);
        }
        subscriber.next(value);
      };
      const whole =
        total === undefined
          ? undefined
          : scheduler.schedule(() => subscriber.error(new TimeoutError('total', total)), total);
      // The operator's own subscriber keeps the unsubscription chain (a synchronous firehose sees `closed`).
      source.subscribe(createOperatorSubscriber<T>(subscriber, onValue));
      return () => {
        deadline?.unsubscribe();
        whole?.unsubscribe();
      };
    });
}

const positive = (value: number | undefined): number | undefined =>
  value !== undefined && value > 0 && Number.isFinite(value) ? value : undefined;
