import { SSE_HEADERS } from './SSE_HEADERS.js';
import { ConfigError } from '../core/errors.js';
import { isServerSentEvent } from '../core/isServerSentEvent.js';
import { formatSseEvent } from './formatSseEvent.js';
import { stringifyValue } from './stringifyValue.js';
import type { WireFormat } from './WireFormat.js';
import { WireText } from './WireText.js';

const DONE = 'data: [DONE]\n\n';

/**
 * The `/chat/sse` wire (Server-Sent Events). `toSse` (the operator) and `sendSse` (the HTTP writer) both write with it.
 *
 * ```text
 * a value                  data: {"message":…,"done":false,"index":0}\n\n     (any JSON value, a string too)
 * a serverSentEvent({…})   its fields: comment, event, id, retry, data         (see formatSseEvent)
 * the end (trailer)        data: [DONE]\n\n
 * an error                 event: error\ndata: {"message","type","code"}\n\n   then data: [DONE]\n\n
 * a heartbeat              : ping\n\n
 * ```
 *
 * A plain string is written as JSON too, so that `"[DONE]"` cannot end the stream early. `encode` throws a
 * `ConfigError` for a value without a JSON form (a function, a symbol, `undefined`) or a malformed event.
 */
export const SSE_WIRE: WireFormat<unknown> = {
  headers: SSE_HEADERS,
  streaming: true,
  encode: (value) => {
    if (value instanceof WireText) return value.text; // a frame written already (a resumable answer's: loggedFrame)
    if (isServerSentEvent(value)) return formatSseEvent(value);
    const json = stringifyValue(value); // JSON.stringify's text; a template for a streamed text chunk
    if (json === undefined) {
      throw new ConfigError(
        `An SSE value needs a JSON form, got ${typeof value}: emit JSON values or serverSentEvent(...)s.`,
      );
    }
    return `data: ${json}\n\n`;
  },
  trailer: DONE,
  encodeError: (body) =>
    `event: error\ndata: ${JSON.stringify({ message: body.message, type: body.type, code: body.code })}\n\n${DONE}`,
  heartbeat: ': ping\n\n',
};
