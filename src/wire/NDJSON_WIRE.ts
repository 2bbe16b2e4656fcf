import { ConfigError } from '../core/errors.js';
import { stringifyValue } from './stringifyValue.js';
import type { WireFormat } from './WireFormat.js';
import { WireText } from './WireText.js';

/**
 * The `/chat/stream` wire (NDJSON): one `JSON.stringify(value) + "\n"` per value, nothing at the end, the spec's
 * error line `{"error":{"message","type","code"},"done":true}\n`. `toNdjson` (the operator) and `sendNdjson` (the
 * HTTP writer) both write with it.
 *
 * `JSON.stringify` without indentation escapes CR and LF inside strings, so a line never contains a raw line break;
 * U+2028 and U+2029 stay as they are (they are not line breaks in NDJSON). NDJSON has no comment syntax, hence no
 * heartbeat.
 *
 * `encode` throws a `ConfigError` for a value without a JSON form (`undefined`, a function, a symbol).
 */
export const NDJSON_WIRE: WireFormat<unknown> = {
  headers: {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
  },
  streaming: true,
  encode: (value) => {
    if (value instanceof WireText) return value.text; // a line written already (a resumable answer's: loggedFrame)
    const json = stringifyValue(value); // JSON.stringify's text; a template for a streamed text chunk
    if (json === undefined) {
      throw new ConfigError(
        `An NDJSON line needs a JSON value, got ${typeof value}: emit objects, arrays, strings, numbers, booleans or null.`,
      );
    }
    // Unreachable for JSON.stringify without `space`; guards the framing should a toJSON() ever manage it.
    if (json.includes('\n')) throw new ConfigError('An NDJSON line must not contain a raw line feed.');
    return `${json}\n`;
  },
  trailer: '',
  encodeError: (body) =>
    `${JSON.stringify({ error: { message: body.message, type: body.type, code: body.code }, done: true })}\n`,
};
