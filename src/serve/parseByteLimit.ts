import { ConfigError } from '../core/errors.js';

/** Bytes per unit, 1024-based as `express.json()`'s `limit` reads them (`'1mb'` is 1048576). */
const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5 };

/** A number, optionally with decimals, optionally followed by a unit; spaces around and between allowed. */
const LIMIT = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb|pb)?\s*$/i;

/**
 * A body limit in bytes: `bodyLimit` as the options document it — a number of bytes (`Infinity`: none), or a string of
 * a number and a 1024-based unit (`'1mb'` = 1048576, `'100kb'` = 102400, `'1.5kb'` = 1536, `'512'` or `'512b'` = 512;
 * the unit in any case), as `express.json({ limit })` reads them. A fraction of a byte is dropped (`'0.5kb'` = 512,
 * `'1.0001kb'` = 1024).
 *
 * ```ts
 * parseByteLimit('1mb'); // 1048576
 * parseByteLimit(2048);  // 2048
 * ```
 *
 * @param limit - The limit as configured.
 * @returns The limit in bytes.
 * @throws ConfigError for anything else (a negative number, `NaN`, `'1 megabyte'`, `'-1kb'`), saying what to write.
 */
export function parseByteLimit(limit: number | string): number {
  if (typeof limit === 'number') {
    if (limit >= 0) return limit;
  } else if (typeof limit === 'string') {
    const match = LIMIT.exec(limit);
    const unit = UNITS[(match?.[2] ?? 'b').toLowerCase()];
    if (match !== null && unit !== undefined) return Math.floor(Number(match[1]) * unit);
  }
  throw new ConfigError(
    `bodyLimit must be a non-negative number of bytes or a string such as '1mb' or '100kb' (units b, kb, mb, gb: 1024-based), got ${JSON.stringify(limit) ?? String(limit)}.`,
  );
}
