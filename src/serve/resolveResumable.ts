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
  const retentionMs = durationMs('resumable.retentionMs', options.retentionMs, 600_000);
  if (retentionMs > MAX_RETENTION_MS) {
    throw new ConfigError(`resumable.retentionMs must be at most ${MAX_RETENTION_MS} (24 h), got ${retentionMs}.`);
  }
  return {
    log: options.log ?? createMemoryStreamLog({ retentionMs }),
    // `Infinity`: never abandoned (durationMs would read a time past a timer's range as none, i.e. at once).
    abandonAfterMs: options.abandonAfterMs === Number.POSITIVE_INFINITY ? undefined : durationMs('resumable.abandonAfterMs', options.abandonAfterMs, 60_000),
    retryAfterMs: durationMs('resumable.retryAfterMs', options.retryAfterMs, 2_000),
  };
}
