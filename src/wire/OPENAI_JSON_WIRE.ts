import { toOpenAiError } from './toOpenAiError.js';
import type { WireFormat } from './WireFormat.js';

/**
 * The non-streaming wire of `POST /v1/chat/completions` (and the body of every error it answers before its first
 * byte, streaming or not): one `chat.completion` object, and OpenAI's error body
 * `{"error":{"message","type","param","code"}}` with the error's status.
 */
export const OPENAI_JSON_WIRE: WireFormat<unknown> = {
  headers: { 'Content-Type': 'application/json' },
  streaming: false,
  encode: (value) => JSON.stringify(value),
  trailer: '',
  encodeError: (body) => JSON.stringify({ error: toOpenAiError(body) }),
};
