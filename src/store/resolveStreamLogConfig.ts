import { ConfigError } from '../core/errors.js';
import type { StreamLogConfig } from './StreamLogConfig.js';

/** The longest retention a stream log accepts: 24 h. */
export const MAX_RETENTION_MS = 86_400_000;

/** {@link StreamLogConfig} with its defaults filled in. */
export type ResolvedStreamLogConfig = Required<StreamLogConfig>;

const positive = (name: string, value: number | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number => {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0 || value > max) {
    throw new ConfigError(`stream log: \`${name}\` must be a whole number from 1 to ${max}; got ${String(value)}`);
  }
  return value;
};

/**
 * Checks a stream log's bounds and lifetimes and fills in the defaults (retention and sliding expiry 10 min, 8 MiB and
 * 50 000 values per stream).
 * @throws ConfigError for a value that is not a positive whole number, or a retention over 24 h.
 */
export function resolveStreamLogConfig(config: StreamLogConfig = {}): ResolvedStreamLogConfig {
  return {
    retentionMs: positive('retentionMs', config.retentionMs, 600_000, MAX_RETENTION_MS),
    activeTtlMs: positive('activeTtlMs', config.activeTtlMs, 600_000),
    maxStreamBytes: positive('maxStreamBytes', config.maxStreamBytes, 8 * 1024 * 1024),
    maxStreamEntries: positive('maxStreamEntries', config.maxStreamEntries, 50_000),
  };
}
