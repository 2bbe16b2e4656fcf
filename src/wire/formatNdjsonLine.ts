import { ConfigError } from '../core/errors.js';

/**
 * Writes one NDJSON line: `JSON.stringify(value) + '\n'`.
 *
 * `JSON.stringify` without indentation escapes CR and LF inside strings, so a line never contains a raw line break;
 * U+2028 and U+2029 stay as they are (they are not line breaks in NDJSON).
 *
 * @param value - Any JSON-serialisable value.
 * @returns The line, ending with `\n`.
 * @throws ConfigError when `value` has no JSON form (`undefined`, a function, a symbol).
 */
export function formatNdjsonLine(value: unknown): string {
  const json: string | undefined = JSON.stringify(value);
  if (json === undefined) {
    throw new ConfigError(
      `An NDJSON line needs a JSON value, got ${typeof value}: emit objects, arrays, strings, numbers, booleans or null.`,
    );
  }
  // Unreachable for JSON.stringify without `space`; guards the framing should a toJSON() ever manage it.
  if (json.includes('\n')) throw new ConfigError('An NDJSON line must not contain a raw line feed.');
  return `${json}\n`;
}
