import { SSE_HEADERS } from './SSE_HEADERS.js';
import { ConfigError } from '../core/errors.js';
import { OPENAI_JSON_WIRE } from './OPENAI_JSON_WIRE.js';
import { stringifyCompletionChunk } from './stringifyCompletionChunk.js';
import { toOpenAiError } from './toOpenAiError.js';
import type { WireFormat } from './WireFormat.js';

/**
 * The streaming wire of `POST /v1/chat/completions` (`"stream": true`): OpenAI's Server-Sent Events, as the `openai`
 * SDKs, LangChain's `ChatOpenAI` and the AI SDK read them.
 *
 * ```text
 * a value                  data: {"object":"chat.completion.chunk",…}\n\n
 * the end (trailer)        data: [DONE]\n\n
 * an error, in-band        data: {"error":{"message","type","param","code"}}\n\n      and no [DONE]
 * an error, before 200     its status, {"error":{"message","type","param","code"}}  (application/json)
 * a heartbeat              : keep-alive\n\n
 * ```
 *
 * An error after the commit is the last frame: the stream ends without `[DONE]`, so a client that ignores error
 * objects still sees the answer as incomplete rather than finished. The headers are the other streaming endpoints'
 * (`text/event-stream`, `Cache-Control: no-cache, no-transform`, `X-Accel-Buffering: no`). `encode` throws a
 * `ConfigError` for a value without a JSON form. A text chunk is written by a template (`stringifyCompletionChunk`):
 * the bytes of `JSON.stringify`, without its walk of the whole object.
 */
export const OPENAI_WIRE: WireFormat<unknown> = {
  headers: SSE_HEADERS,
  streaming: true,
  encode: (value) => {
    const json = stringifyCompletionChunk(value); // JSON.stringify's text; a template for a streamed text chunk
    if (json === undefined) {
      throw new ConfigError(`An OpenAI stream chunk needs a JSON form, got ${typeof value}: emit chat.completion.chunk objects.`);
    }
    return `data: ${json}\n\n`;
  },
  trailer: 'data: [DONE]\n\n',
  encodeError: (body) => `data: ${JSON.stringify({ error: toOpenAiError(body) })}\n\n`,
  heartbeat: ': keep-alive\n\n',
  errorResponse: OPENAI_JSON_WIRE,
};
