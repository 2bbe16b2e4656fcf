import { bearerClientKey } from '../serve/bearerClientKey.js';
import type { ChatExchange } from '../serve/ChatExchange.js';
import type { ChatReply } from '../serve/ChatReply.js';
import { createServingCore } from '../serve/createServingCore.js';
import type { ChatWireFormat } from '../serve/SERVING_WIRES.js';
import { SSE_HEADERS } from '../wire/SSE_HEADERS.js';
import { readRequestJson } from './readRequestJson.js';
import { toResponse } from './toResponse.js';
import type { WebChatHandlers, WebHandler } from './WebChatHandlers.js';
import type { WebChatHandlersConfig } from './WebChatHandlersConfig.js';

/** `…/chat/ui/{chatId}/stream` (`GET`: `useChat`'s resume): the chat id. */
const UI_STREAM_PATH = /\/ui\/([^/]*)\/stream\/?$/;

/** A path segment decoded (`useChat` encodes the chat id), or as it is when it is not valid percent-encoding. */
const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};
/** `…/chat/streams/{id}` (`GET`: resume) and `…/chat/streams/{id}/cancel` (`POST`): the id, and `/cancel`. */
const STREAM_PATH = /\/streams\/([^/]*)(\/cancel)?\/?$/;

/**
 * The chat endpoints as web-standard handlers, `(request: Request) => Promise<Response>`, for Hono, Next.js route
 * handlers, Bun and Deno: the web adapter of the serving core (`createServingCore`), which node's `chatRouter` and `ChatfluxModule` serve
 * by too: the same checks, statuses, messages, bytes and log entries, written by {@link toResponse}.
 *
 * ```text
 * request ─► exchange (headers, readRequestJson under the limit and deadline, the Bearer key or 'anonymous')
 *         ─► createServingCore ─► reply ─► toResponse(reply.source, reply.wire) ─► reply.end(outcome)
 * ```
 *
 * 1. Each request gets its own demand gate, shared by the client (the upstream read) and the body (the client's pulls).
 * 2. The client going away (the body cancelled, or `request.signal` aborted) unsubscribes: the upstream is aborted.
 * 3. A body not complete within `bodyTimeoutMs` (30 s) gets 408 `request_timeout`.
 * 4. `sse` serves `GET ?q=` too, and `HEAD` of it with GET's checks, status and headers (the upstream not called) (key 401, `q` once 400, at most `queryLimit` characters 413, JSON 400, schema 400;
 *    without `q` the `demoRequest`). Its final frame tells the `EventSource` not to reconnect (`EVENT_SOURCE_WIRE`);
 *    a reconnect that does anyway (`Last-Event-ID` naming that frame) gets 204, which stops it.
 * 5. `token` serves `POST /chat/token` as the node endpoints do: behind the key (401), `{ token, expiresAt }` with
 *    `Cache-Control: no-store`, a short-lived signed token (`tokenTtlMs`) that `sse`'s `GET ?token=…` takes in place
 *    of the `Authorization` header, counted as the same client; without `apiKeys`, 400 (do not route it then).
 * 6. `log` receives one entry per request of the three endpoints, the same entry as the node endpoints (`toChatRequestLog`).
 * 7. A `shutdown` (`createGracefulShutdown`) works as for the node endpoints: while it drains, a new request gets 503
 *    `shutting_down` with `Connection: close`; each response is tracked until it ends; its signal ends them.
 *
 * ## Example (Hono)
 * ```ts
 * const chat = createChatHandlers({ client });
 * app.post('/chat/json', (c) => chat.json(c.req.raw));
 * app.post('/chat/stream', (c) => chat.stream(c.req.raw));
 * app.on(['GET', 'POST'], '/chat/sse', (c) => chat.sse(c.req.raw));
 * app.post('/chat/token', (c) => chat.token(c.req.raw)); // with apiKeys, for EventSource
 * ```
 *
 * @param config - The client and the endpoints' options.
 * @returns The handlers of the three endpoints and of `POST /chat/token`.
 */
export function createChatHandlers(config: WebChatHandlersConfig): WebChatHandlers {
  const core = createServingCore<Request>(config);
  /** The headers the core set on each request's response while checking it (the rate-limit fields). */
  const learned = new WeakMap<Request, Record<string, string>>();
  const exchangeOf = (request: Request): ChatExchange<Request> => ({
    request,
    method: request.method,
    url: request.url,
    header: (name) => request.headers.get(name) ?? undefined,
    hasBody: request.body !== null, // a data property: a getter would put every request's exchange in dictionary mode
    readBody: (limit, timeoutMs) => readRequestJson(request, limit, timeoutMs),
    defaultClientKey: (byKey) => (byKey ? bearerClientKey(request.headers.get('authorization') ?? undefined) : undefined) ?? 'anonymous',
    setHeader: (name, value) => {
      const headers = learned.get(request) ?? {};
      headers[name] = value;
      learned.set(request, headers);
    },
  });
  /** Writes the core's reply as a `Response`, ending it with the body (or the client going away). */
  const write = async (made: ChatReply | Promise<ChatReply>, request: Request): Promise<Response> => {
    const reply = await made;
    if (reply.noContent !== undefined) {
      reply.end(reply.noContent);
      return new Response(null, { status: 204 });
    }
    if (reply.retryMs !== undefined) {
      const body = `retry: ${reply.retryMs}\n\n`;
      reply.end({ result: 'completed', status: 200, committed: true, values: 0, bytes: new TextEncoder().encode(body).length });
      return new Response(body, { status: 200, headers: SSE_HEADERS });
    }
    const { demand, heartbeatAfter, onValue, options } = reply;
    const response = await toResponse(reply.source, reply.wire, {
      ...options,
      ...(demand === undefined ? {} : { demand }),
      ...(heartbeatAfter === undefined ? {} : { heartbeatAfter }),
      ...(onValue === undefined ? {} : { onValue }),
      requestSignal: request.signal,
      onEnd: reply.end,
    });
    if (reply.headers !== undefined) for (const [name, value] of Object.entries(reply.headers)) response.headers.set(name, value);
    for (const [name, value] of Object.entries(learned.get(request) ?? {})) response.headers.set(name, value);
    return response;
  };
  /** `GET /chat/sse?q=…` (an EventSource's), or `HEAD` of it; else the POST of `wire`. */
  const post =
    (wire: ChatWireFormat): WebHandler =>
    (request) => {
      if (wire !== 'sse' || (request.method !== 'GET' && request.method !== 'HEAD')) return write(core.post(wire, exchangeOf(request)), request);
      const values = new URL(request.url).searchParams.getAll('q');
      const q = values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
      return write(core.query(exchangeOf(request), q), request);
    };
  return {
    json: post('json'),
    stream: post('ndjson'),
    sse: post('sse'),
    token: (request) => write(core.token(exchangeOf(request)), request),
    completions: async (request) => write(await core.completions(exchangeOf(request)), request),
    models: (request) => write(core.models(exchangeOf(request)), request),
    ui: (request) => {
      if (request.method === 'POST') return write(core.ui(exchangeOf(request)), request);
      const chatId = UI_STREAM_PATH.exec(new URL(request.url).pathname)?.[1] ?? '';
      return write(core.uiResume(exchangeOf(request), safeDecode(chatId)), request);
    },
    messages: async (request) => write(await core.messages(exchangeOf(request)), request),
    countTokens: (request) => write(core.countTokens(exchangeOf(request)), request),
    streams: (request) => {
      const match = STREAM_PATH.exec(new URL(request.url).pathname);
      const id = match?.[1] ?? '';
      if (match?.[2] === undefined && request.method !== 'POST') return write(core.resume(exchangeOf(request), id), request);
      return write(core.cancel(exchangeOf(request), id), request);
    },
  };
}
