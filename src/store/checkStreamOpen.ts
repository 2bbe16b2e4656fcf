import { ConfigError } from '../core/errors.js';
import type { StreamMetaInit } from './StreamMeta.js';
import type { StreamOpenConfig } from './StreamOpenConfig.js';

const STREAM_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** True for a well-formed stream id: 1–64 characters of `[A-Za-z0-9_-]`. A read of any other id finds nothing. */
export const isStreamId = (id: unknown): id is string => typeof id === 'string' && STREAM_ID.test(id);

/**
 * Checks what a producer passes to `StreamLog.open`.
 * @throws ConfigError for a malformed id, an owner hash over 128 or a wire over 32 characters, or a negative abandon time.
 */
export function checkStreamOpen(id: string, meta: StreamMetaInit, config: StreamOpenConfig = {}): void {
  if (!isStreamId(id)) throw new ConfigError(`stream log: a stream id is 1–64 characters of [A-Za-z0-9_-]; got ${JSON.stringify(String(id)).slice(0, 80)}`);
  if (typeof meta.ownerKeyHash !== 'string' || meta.ownerKeyHash.length > 128) {
    throw new ConfigError('stream log: `ownerKeyHash` must be a string of at most 128 characters (a hash of the key, never the key)');
  }
  if (typeof meta.wire !== 'string' || meta.wire.length > 32) throw new ConfigError('stream log: `wire` must be a string of at most 32 characters');
  const { abandonAfterMs } = config;
  if (abandonAfterMs !== undefined && (!Number.isSafeInteger(abandonAfterMs) || abandonAfterMs < 0)) {
    throw new ConfigError(`stream log: \`abandonAfterMs\` must be a whole number ≥ 0 (0: abandon as soon as no reader is left); got ${String(abandonAfterMs)}`);
  }
}
