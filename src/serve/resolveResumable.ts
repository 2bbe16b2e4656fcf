import { ConfigError } from '../core/errors.js';
import { durationMs } from '../core/durationMs.js';
import { createMemoryStreamLog } from '../store/createMemoryStreamLog.js';
import type { StreamLog } from '../store/StreamLog.js';
import type { ResumableConfig } from './ResumableConfig.js';

/** The resumable answers' settings, resolved once per serving core. */
export interface ResumableSettings {
  /** The stream log. */
  readonly log: StreamLog;
  /** No reader for this long: the upstream is aborted (`0`: at once; `undefined`: never). */
  readonly abandonAfterMs: number | undefined;
  /** A resume the log cannot serve now: come back after this long. */
  readonly retryAfterMs: number;
}

/** The longest retention a finished answer can have: a day. */
const MAX_RETENTION_MS = 86_400_000;
/** The longest delay a Node timer keeps (2^31 - 1 ms): an abandon time past it is never. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves the serving core's `resumable` option: `undefined` when off, else the log (the given one, or an in-memory
 * one of this process) and the times.
 *
 * @param config - The option as given.
 * @returns The settings, or `undefined` (off).
 * @throws ConfigError naming a wrong time.
 */
export function resolveResumable(config: boolean | ResumableConfig | undefined): ResumableSettings | undefined {
  if (config === undefined || config === false) return undefined;
  const options: ResumableConfig = config === true ? {} : config;
  // Checked before durationMs, which reads a time past a timer's range (Infinity too) as none — 0, here "at once".
  const { retentionMs: givenRetention, abandonAfterMs: givenAbandon } = options;
  if (typeof givenRetention === 'number' && givenRetention > MAX_RETENTION_MS) {
    throw new ConfigError(`resumable.retentionMs must be at most ${MAX_RETENTION_MS} (24 h), got ${givenRetention}.`);
  }
  const retentionMs = durationMs('resumable.retentionMs', givenRetention, 600_000);
  if (givenAbandon !== undefined && givenAbandon !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(givenAbandon) && givenAbandon >= 0)) {
    throw new ConfigError(`resumable.abandonAfterMs must be a whole number of ms ≥ 0 (0: at once) or Infinity (never), got ${String(givenAbandon)}; omit it for 60000.`);
  }
  return {
    log: options.log ?? createMemoryStreamLog({ retentionMs }),
    // Past a timer's range (`Infinity` too): never abandoned.
    abandonAfterMs: givenAbandon !== undefined && givenAbandon > MAX_TIMER_MS ? undefined : (givenAbandon ?? 60_000),
    retryAfterMs: durationMs('resumable.retryAfterMs', options.retryAfterMs, 2_000),
  };
}
