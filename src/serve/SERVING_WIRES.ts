import { identity, map, tap, type Observable } from 'rxjs';
import type { ChatCallOptions, ChatClient } from '../client/createChatClient.js';
import { restartEvent } from '../client/restartEvent.js';
import type { ChatRequest, Usage } from '../core/schemas/index.js';
import { ANTHROPIC_JSON_WIRE } from '../wire/ANTHROPIC_JSON_WIRE.js';
import { ANTHROPIC_WIRE } from '../wire/ANTHROPIC_WIRE.js';
import { EVENT_SOURCE_WIRE } from '../wire/EVENT_SOURCE_WIRE.js';
import { JSON_WIRE } from '../wire/JSON_WIRE.js';
import { NDJSON_WIRE } from '../wire/NDJSON_WIRE.js';
import { OPENAI_JSON_WIRE } from '../wire/OPENAI_JSON_WIRE.js';
import { OPENAI_WIRE } from '../wire/OPENAI_WIRE.js';
import { SSE_WIRE } from '../wire/SSE_WIRE.js';
import { UI_MESSAGE_WIRE } from '../wire/UI_MESSAGE_WIRE.js';
import type { WireFormat } from '../wire/WireFormat.js';
import { toAnthropicEvents } from '../operators/toAnthropicEvents.js';
import { toAnthropicMessage } from '../operators/toAnthropicMessage.js';
import { toChatCompletion } from '../operators/toChatCompletion.js';
import { toChatCompletionChunks } from '../operators/toChatCompletionChunks.js';
import { toUiMessageStream } from '../operators/toUiMessageStream.js';
import type { ChatEndpoint } from './ChatRequestLog.js';

/**
 * The three wires of the downstream contract: `json` (`/chat/json`, one object), `ndjson` (`/chat/stream`, one
 * object per line), `sse` (`/chat/sse`, `text/event-stream` ending with `data: [DONE]`); `eventsource`, the `sse` wire
 * of `GET /chat/sse` (a browser's `EventSource`), whose final frame also says not to reconnect; and the two of OpenAI's
 * `/v1/chat/completions`: `openai` (one `chat.completion`) and `openai-sse` (`chat.completion.chunk`s, `"stream": true`);
 * and the two of Anthropic's `/v1/messages`: `anthropic` (one `message`) and `anthropic-sse` (its events, `"stream": true`);
 * and `ui`, the AI SDK's UI message stream of `/chat/ui` (`useChat`).
 */
export type ChatWireFormat = 'json' | 'ndjson' | 'sse' | 'eventsource' | 'openai' | 'openai-sse' | 'anthropic' | 'anthropic-sse' | 'ui';

/** What a wire is, whatever the transport that writes it: its path, its formatter and the client call behind it. */
export interface ServingWire {
  /** The endpoint's path. */
  endpoint: ChatEndpoint;
  /** The formatter of its bytes (`src/wire/`): the same object its operator face (`toSse`, `toNdjson`) writes with. */
  format: WireFormat<unknown>;
  /**
   * The client method whose result the endpoint serves (`json`, `stream`; `/chat/sse` writes `stream` as SSE frames).
   * `onUsage`: told the answer's usage where the wire may not write it (`openai-sse` without `include_usage`: the token
   * limits settle with it); the other wires write it, and the core reads it from what is written (`usageOf`).
   */
  call(client: ChatClient, request: ChatRequest, options: ChatCallOptions, onUsage?: (usage: Usage) => void): Observable<unknown>;
}

/** `client.stream()` for the SSE wires: the chunks as they are, a restart chunk as `event: restart`. */
const sseFrames: ServingWire['call'] = (client, request, options) => {
  const chunks = client.stream(request, options);
  if (options.acceptRestart !== true) return chunks;
  return chunks.pipe(map((data) => restartEvent(data) ?? data));
};

/**
 * THE wire table, transport-neutral: for each wire, its path, its formatter and the client call behind it. The serving
 * core (`createServingCore`) serves by it, node's `CHAT_WIRES` adds each wire's `node:http` writer to it, and the web
 * handlers' `toResponse` writes its formatter onto a `Response`.
 */
export const SERVING_WIRES: Readonly<Record<ChatWireFormat, ServingWire>> = {
  json: {
    endpoint: '/chat/json',
    format: JSON_WIRE,
    call: (client, request, options) => client.json(request, options),
  },
  ndjson: {
    endpoint: '/chat/stream',
    format: NDJSON_WIRE,
    call: (client, request, options) => client.stream(request, options),
  },
  sse: {
    endpoint: '/chat/sse',
    format: SSE_WIRE,
    // `client.stream()` in SSE_WIRE's frames: the bytes of `client.sse()` (`data: <json>`), without a ServerSentEvent
    // made per chunk only to be taken apart by the writer; a restart (for a caller who accepts one) as `event: restart`.
    call: (client, request, options) => sseFrames(client, request, options),
  },
  // GET /chat/sse: the same frames, ended by a final frame that tells an EventSource not to reconnect.
  eventsource: {
    endpoint: '/chat/sse',
    format: EVENT_SOURCE_WIRE,
    call: (client, request, options) => sseFrames(client, request, options),
  },
  // OpenAI's endpoint makes the same client calls as /chat/json and /chat/stream (retries, failover, timeouts apply
  // alike), then only reshapes their answers.
  openai: {
    endpoint: '/v1/chat/completions',
    format: OPENAI_JSON_WIRE,
    call: (client, request, options) => client.json(request, options).pipe(toChatCompletion()),
  },
  'openai-sse': {
    endpoint: '/v1/chat/completions',
    format: OPENAI_WIRE,
    call: (client, request, options, onUsage) =>
      client.stream(request, options).pipe(
        onUsage === undefined ? identity : tap((chunk) => chunk.usage !== undefined && onUsage(chunk.usage)),
        toChatCompletionChunks({
          model: request.model ?? client.model ?? 'unknown',
          includeUsage: (request as { stream_options?: { include_usage?: unknown } | null }).stream_options?.include_usage === true,
        }),
      ),
  },
  // Anthropic's endpoint too: the same client calls (routes, failover, continuation, timeouts), reshaped.
  anthropic: {
    endpoint: '/v1/messages',
    format: ANTHROPIC_JSON_WIRE,
    call: (client, request, options) => client.json(request, options).pipe(toAnthropicMessage({ model: request.model ?? client.model ?? 'unknown' })),
  },
  'anthropic-sse': {
    endpoint: '/v1/messages',
    format: ANTHROPIC_WIRE,
    call: (client, request, options) => client.stream(request, options).pipe(toAnthropicEvents({ model: request.model ?? client.model ?? 'unknown' })),
  },
  // The AI SDK's UI message stream (`useChat`): the same client call, reshaped. A restart cannot be said in it, so a
  // caller's Chatflux-Accept-Restart is not heard.
  ui: {
    endpoint: '/chat/ui',
    format: UI_MESSAGE_WIRE,
    call: (client, request, { acceptRestart: _restart, ...options }) => client.stream(request, options).pipe(toUiMessageStream()),
  },
};
