import type { StreamLogHealth } from './StreamLogHealth.js';
import type { StreamOutcome } from './StreamOutcome.js';

/**
 * Why a producer's {@link StreamProducer.signal} fired: someone cancelled the stream (on any instance), or no reader
 * was attached for `abandonAfterMs`. The producer then aborts its upstream and ends the stream with that outcome.
 */
export type StreamStopReason = 'cancelled' | 'abandoned';

/**
 * The writing side of one logged stream, from {@link StreamLog.open}. One producer per stream.
 *
 * Nothing here throws into the client's path or waits on the store: `append` is synchronous and the shared store
 * is written behind (a full queue or a store that is down turns the stream local-only, counted in the stats).
 */
export interface StreamProducer {
  /** The stream's id. */
  readonly id: string;
  /**
   * Where the stream can be resumed now: `'shared'` (every instance) or `'local'` (this process only). Starts as
   * the log's health at `open` and can only turn from `'shared'` to `'local'` while the stream runs.
   */
  readonly resumability: StreamLogHealth;
  /**
   * Fires (once) when the producer must stop: its `reason` is a {@link StreamStopReason}. Also readable as
   * {@link stopReason}. The producer aborts its upstream and calls `end({kind: reason})`.
   */
  readonly signal: AbortSignal;
  /** Why {@link signal} fired; `undefined` while it has not. */
  readonly stopReason: StreamStopReason | undefined;
  /**
   * Appends one value (a serialized event, e.g. the NDJSON line's JSON without its newline) and returns its position:
   * `0` for the first, then dense. Synchronous; never throws for store trouble.
   * @throws ChatfluxError `invalid_config` when called after `end`.
   */
  append(data: string): number;
  /**
   * Tells the log the producer's own client is attached (its response is being written): the stream is not
   * abandoned while it is. Call the returned function when that client goes away (disconnect is not a cancel: the
   * stream keeps running; with no reader anywhere for `abandonAfterMs`, {@link signal} fires with `'abandoned'`).
   */
  attachClient(): () => void;
  /**
   * Writes the terminal entry (after every value appended) and releases the stream's lease and timers. Resolves when
   * the store has it, or when the store was given up on (the stream is then local-only); never rejects. Idempotent:
   * a second call is ignored and returns the first call's promise.
   */
  end(outcome: StreamOutcome): Promise<void>;
}
