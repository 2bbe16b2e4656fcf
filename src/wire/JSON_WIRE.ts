import type { WireFormat } from './WireFormat.js';

/**
 * The `/chat/json` wire: the one value as a JSON object (written when the Mono completes), and the spec's
 * `{"error":{"message","type","code"}}` for an error. `sendJson` (the HTTP writer) writes with it.
 *
 * `Content-Type: application/json` is the spec's, exactly: RFC 8259 JSON is UTF-8 and defines no charset parameter.
 */
export const JSON_WIRE: WireFormat<unknown> = {
  headers: { 'Content-Type': 'application/json' },
  streaming: false,
  encode: (value) => JSON.stringify(value),
  trailer: '',
  encodeError: (body) => JSON.stringify({ error: body }),
};
