import { toAnthropicError } from './toAnthropicError.js';
import type { WireFormat } from './WireFormat.js';

/**
 * The non-streaming wire of `POST /v1/messages` (and of `/v1/messages/count_tokens`, and the body of every error it
 * answers before its first byte, streaming or not): one JSON object — Anthropic's `message` — and Anthropic's error
 * body `{"type":"error","error":{"type","message"}}` (`toAnthropicError`) with the error's status.
 */
export const ANTHROPIC_JSON_WIRE: WireFormat<unknown> = {
  headers: { 'Content-Type': 'application/json' },
  streaming: false,
  encode: (value) => JSON.stringify(value),
  trailer: '',
  encodeError: (body) => JSON.stringify(toAnthropicError(body)),
};
