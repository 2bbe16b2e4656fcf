import { ConfigError } from '../core/errors.js';
import { ANTHROPIC_JSON_WIRE } from './ANTHROPIC_JSON_WIRE.js';
import { SSE_HEADERS } from './SSE_HEADERS.js';
import { toAnthropicError } from './toAnthropicError.js';
import type { WireFormat } from './WireFormat.js';

/** An event's frame: its type as the `event:` line, the event as the `data:` line. */
const frame = (type: string, data: string): string => `event: ${type}\ndata: ${data}\n\n`;

/**
 * The streaming wire of `POST /v1/messages` (`"stream": true`): Anthropic's Server-Sent Events, as the
 * `@anthropic-ai/sdk` (`messages.stream()`, `messages.create({stream: true})`) and Claude Code read them.
 *
 * ```text
 * a value (an event)       event: content_block_delta\ndata: {"type":"content_block_delta",…}\n\n
 * the end (trailer)        event: message_stop\ndata: {"type":"message_stop"}\n\n
 * an error, in-band        event: error\ndata: {"type":"error","error":{"type","message"}}\n\n     and no message_stop
 * an error, before 200     its status, {"type":"error","error":{"type","message"}}  (application/json)
 * a heartbeat              event: ping\ndata: {"type":"ping"}\n\n
 * ```
 *
 * `message_stop` is written only when the answer completes: an answer cut by an error ends with the `error` event,
 * so a client never takes a truncated answer for a finished one. The values are `toAnthropicEvents`' events (each
 * framed by its `type`); the headers are the other streaming endpoints'. `encode` throws a `ConfigError` for a value
 * that is not an event (an object with a string `type`).
 */
export const ANTHROPIC_WIRE: WireFormat<unknown> = {
  headers: SSE_HEADERS,
  streaming: true,
  encode: (value) => {
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !/^[a-z_]+$/.test(type)) {
      throw new ConfigError(`An Anthropic stream value must be an event with a "type" (toAnthropicEvents' output), got ${JSON.stringify(type) ?? typeof value}.`);
    }
    return frame(type, JSON.stringify(value));
  },
  trailer: frame('message_stop', '{"type":"message_stop"}'),
  encodeError: (body) => frame('error', JSON.stringify(toAnthropicError(body))),
  heartbeat: frame('ping', '{"type":"ping"}'),
  errorResponse: ANTHROPIC_JSON_WIRE,
};
