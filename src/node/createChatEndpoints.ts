import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatExchange } from '../serve/ChatExchange.js';
import type { ChatReply } from '../serve/ChatReply.js';
import { createServingCore } from '../serve/createServingCore.js';
import { parseByteLimit } from '../serve/parseByteLimit.js';
import type { ServingCoreConfig } from '../serve/ServingCoreConfig.js';
import { toRequestError } from '../serve/toRequestError.js';
import { SSE_HEADERS } from '../wire/SSE_HEADERS.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';
import { CHAT_WIRES, type ChatWireFormat } from './CHAT_WIRES.js';
import { clientKeyOf } from './clientKeyOf.js';
import { closeUnreadRequest } from './closeUnreadRequest.js';
import { hasBody } from './hasBody.js';
import { readJsonBody, type PlatformBody } from './readJsonBody.js';

/** Options of {@link createChatEndpoints}: those of `chatRouter` and `ChatfluxModule.forRoot`, with a client. */
export interface ChatEndpointsConfig extends ServingCoreConfig<IncomingMessage> {
  /**
   * Who a request comes from, for `maxConcurrentPerClient` (default `clientKeyOf(req, apiKeys configured)`). A
   * `GET /chat/sse?token=…` request counts by default as the client of its token's key; a custom `clientKey` is asked
   * about it as about any request (it has no `Authorization` header). The same client is a route's `caller` (its
   * breakers), when a custom `clientKey` or two or more keys tell clients apart.
   */
  clientKey?: (req: IncomingMessage) => string;
}

/** The chat endpoints over `node:http`: see {@link createChatEndpoints}. */
export interface ChatEndpoints {
  /**
   * Serves `POST /chat/json`, `/chat/stream` or `/chat/sse`: key (401), media type (415), body (413, 400), schema
   * (400), then the client's answer, written by the wire's writer.
   *
   * @param wire - Which endpoint.
   * @param req - The node request (its body is read here unless a parser read it already).
   * @param res - The node response, untouched so far.
   * @param platform - What a platform's own body parser made of the body (see `readJsonBody`).
   * @returns The writer's outcome (never rejects).
   */
  post(wire: ChatWireFormat, req: IncomingMessage, res: ServerResponse, platform?: PlatformBody): Promise<WriteOutcome>;
  /**
   * Serves `GET /chat/sse?q=<url-encoded JSON request>` (for `EventSource`): key (401), `q` once (400), at most
   * `queryLimit` characters (413), JSON (400), schema (400); without `q` the `demoRequest`, else 400. A `HEAD`
   * request gets the same checks, status and headers, and no body: the upstream is not called. The stream's final
   * frame tells the `EventSource` not to reconnect (`EVENT_SOURCE_WIRE`); a reconnect that does anyway (its
   * `Last-Event-ID` naming that frame) gets 204 at once, which stops it.
   *
   * @param req - The node request.
   * @param res - The node response, untouched so far.
   * @param q - The parsed `q` query parameter (a string, an array when repeated, or `undefined`).
   * @returns The writer's outcome (never rejects).
   */
  query(req: IncomingMessage, res: ServerResponse, q: unknown): Promise<WriteOutcome>;
  /**
   * Serves OpenAI's `POST /v1/chat/completions`: the checks of `post` (401, 429, 415, 413, 400, and 400 for `n` > 1 or a `stream` / `stream_options` of the wrong type),
   * then `"stream": true` is served on the `openai-sse` wire (`chat.completion.chunk`s, `data: [DONE]`), anything
   * else on the `openai` wire (one `chat.completion`); every refusal is OpenAI's error body with its status.
   *
   * @param req - The node request (its body is read here unless a parser read it already).
   * @param res - The node response, untouched so far.
   * @param platform - What a platform's own body parser made of the body (see `readJsonBody`).
   * @returns The writer's outcome (never rejects).
   */
  completions(req: IncomingMessage, res: ServerResponse, platform?: PlatformBody): Promise<WriteOutcome>;
  /**
   * Serves Anthropic's `POST /v1/messages` (`?beta=true` too): the gateway's key as `x-api-key` or Bearer (401), the
   * checks of `post` on the request `fromAnthropicRequest` makes of the body (400 naming what cannot be sent to an
   * OpenAI-compatible provider), then `"stream": true` on the `anthropic-sse` wire (Anthropic's events), anything else
   * on the `anthropic` wire (one `message`); every refusal is Anthropic's error body with its status.
   *
   * @param req - The node request (its body is read here unless a parser read it already).
   * @param res - The node response, untouched so far.
   * @param platform - What a platform's own body parser made of the body (see `readJsonBody`).
   * @returns The writer's outcome (never rejects).
   */
  messages(req: IncomingMessage, res: ServerResponse, platform?: PlatformBody): Promise<WriteOutcome>;
  /**
   * Serves the AI SDK's `POST /chat/ui` (`useChat`'s `DefaultChatTransport`): the checks of `post` on the request
   * `fromUiChatRequest` makes of the body (`model` beside `messages`, else the default; a 400 naming a part that
   * cannot be sent), then the `ui` wire (the UI message stream); every refusal is the protocol's error part.
   *
   * @param req - The node request (its body is read here unless a parser read it already).
   * @param res - The node response, untouched so far.
   * @param platform - What a platform's own body parser made of the body (see `readJsonBody`).
   * @returns The writer's outcome (never rejects).
   */
  ui(req: IncomingMessage, res: ServerResponse, platform?: PlatformBody): Promise<WriteOutcome>;
  /**
   * Serves the AI SDK's `GET /chat/ui/{chatId}/stream` (`useChat({ resume: true })`, with `resumable`): the client's
   * running answer of that chat (one sent with `resume: true`) replayed from its start; 204 when there is none.
   *
   * @param req - The node request.
   * @param res - The node response, untouched so far.
   * @param chatId - The `{chatId}` path segment.
   * @returns The writer's outcome (never rejects).
   */
  uiResume(req: IncomingMessage, res: ServerResponse, chatId: string): Promise<WriteOutcome>;
  /**
   * Serves Anthropic's `POST /v1/messages/count_tokens`: the checks of `messages`, then `{"input_tokens": n}`, an
   * estimate (see `countMessageTokens`).
   *
   * @param req - The node request.
   * @param res - The node response, untouched so far.
   * @param platform - What a platform's own body parser made of the body (see `readJsonBody`).
   * @returns The writer's outcome (never rejects).
   */
  countTokens(req: IncomingMessage, res: ServerResponse, platform?: PlatformBody): Promise<WriteOutcome>;
  /**
   * Serves OpenAI's `GET /v1/models`: key (401), then `{"object":"list","data":[{"id","object":"model","created","owned_by"}]}`
   * listing the default model, the client's, the request policy's `allowedModels` and `config.models`.
   *
   * @param req - The node request.
   * @param res - The node response, untouched so far.
   * @returns The writer's outcome (never rejects).
   */
  models(req: IncomingMessage, res: ServerResponse): Promise<WriteOutcome>;
  /**
   * Serves `POST /chat/token` (when `apiKeys` are configured): behind the same Bearer key check (401), answers
   * `{ token, expiresAt }`, a short-lived signed token (`tokenTtlMs`, see `createSseTokens`) that `GET /chat/sse?token=…`
   * accepts in place of the `Authorization` header (a browser's `EventSource` cannot send one) until it expires, any
   * number of times, while its key is configured; counted as the key's client for `maxConcurrentPerClient`. Without
   * `apiKeys`: 400 (the endpoints are open; `GET /chat/sse` needs no token).
   *
   * @param req - The node request (a body, if any, is not read).
   * @param res - The node response, untouched so far.
   * @returns The writer's outcome (never rejects).
   */
  token(req: IncomingMessage, res: ServerResponse): Promise<WriteOutcome>;
  /**
   * Serves `GET /chat/streams/{id}` (with `resumable`): the answer `id` resumed — SSE after `Last-Event-ID` or
   * `?after=` when `Accept` has `text/event-stream`, else NDJSON after `?after=` (from the start without it) — for
   * its key (or a `token` of it) only; 204 (SSE) or 404 `stream_not_found` (NDJSON) for any other.
   *
   * @param req - The node request.
   * @param res - The node response, untouched so far.
   * @param id - The `{id}` path segment.
   * @returns The writer's outcome (never rejects).
   */
  resume(req: IncomingMessage, res: ServerResponse, id: string): Promise<WriteOutcome>;
  /**
   * Serves `POST /chat/streams/{id}/cancel` (with `resumable`): stops the answer `id` wherever it is produced and
   * answers `{ id, cancelled }`; 404 `stream_not_found` for another key's or an unknown id.
   *
   * @param req - The node request (a body, if any, is not read).
   * @param res - The node response, untouched so far.
   * @param id - The `{id}` path segment.
   * @returns The writer's outcome (never rejects).
   */
  cancel(req: IncomingMessage, res: ServerResponse, id: string): Promise<WriteOutcome>;
  /**
   * Whether `token` has tokens to give (`apiKeys` are configured): the adapters route `POST /chat/token` only then
   * (404 otherwise; the endpoints are open and `GET /chat/sse` needs no token).
   */
  readonly servesTokens: boolean;
}

/**
 * The limit to name in a 413: ours — unless a parser with a smaller limit (Nest's default 100 kb) refused a body that
 * ours would have taken; then its limit, which is the one the body broke.
 */
const limitRefusing = (error: unknown, ours: number | string, req: IncomingMessage): number | string => {
  const theirs = (error as { limit?: unknown } | null)?.limit;
  const max = parseByteLimit(ours);
  const length = Number(req.headers['content-length']);
  return typeof theirs === 'number' && theirs < max && !(length > max) ? theirs : ours;
};

/**
 * The chat endpoints over `node:http`, which Express's `chatRouter` and NestJS's `ChatfluxModule` both call: the
 * node adapter of the serving core (`createServingCore`), where every check, every refusal, the client call and the
 * log entry are chosen — so both frameworks, and the web handlers, answer with the same statuses, messages and bytes.
 *
 * ```text
 * req, res ─► exchange (headers, readJsonBody under the limit and deadline, clientKeyOf, the place held until close)
 *          ─► createServingCore ─► reply ─► CHAT_WIRES[reply.wire].send(res) ─► reply.end(outcome)
 * ```
 *
 * 1. The node request is the core's exchange: its body read by `readJsonBody` (a body a platform's parser read
 *    first is still held to `bodyLimit`; a smaller limit of that parser is the one its 413 names), the client's
 *    place held until the response's `close`.
 * 2. The reply is written by the wire's node writer (`CHAT_WIRES`); a refused body still arriving is not read for
 *    minutes (`closeUnreadRequest`), and its connection is closed.
 *
 * @param config - The client and the endpoints' options.
 * @returns The endpoints: `post`, `query`, `token`, OpenAI's `completions` and `models`, Anthropic's `messages` and `countTokens`, the AI SDK's `ui`.
 */
export function createChatEndpoints(config: ChatEndpointsConfig): ChatEndpoints {
  const core = createServingCore<IncomingMessage>(config);
  const exchangeOf = (req: IncomingMessage, res: ServerResponse, platform?: PlatformBody): ChatExchange<IncomingMessage> => ({
    request: req,
    method: req.method ?? 'GET',
    url: req.url ?? '',
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    },
    hasBody: hasBody(req), // a data property: a getter would put every request's exchange in dictionary mode (~0.8 KB)
    readBody: async (limit, timeoutMs) => {
      try {
        return await readJsonBody(req, limit, platform, timeoutMs);
      } catch (error) {
        throw toRequestError(error, limitRefusing(error, limit, req)) ?? error;
      }
    },
    defaultClientKey: (byKey) => clientKeyOf(req, byKey),
    // A response closed already (the client went away while its admission was decided): its place is freed at once.
    hold: (release) => (res.closed ? release() : void res.once('close', release)),
    setHeader: (name, value) => {
      if (!res.headersSent) res.setHeader(name, value);
    },
    refused: () => {
      if (!req.complete && !res.headersSent) res.setHeader('Connection', 'close'); // refused before its body was read
    },
  });
  /** Writes the core's reply with the wire's writer; `closeUnread`: a refused body still trickling is not read for minutes. */
  const write = (reply: ChatReply, req: IncomingMessage, res: ServerResponse, closeUnread = true): Promise<WriteOutcome> => {
    if (reply.noContent !== undefined) {
      res.writeHead(204).end();
      reply.end(reply.noContent);
      return Promise.resolve(reply.noContent);
    }
    if (reply.retryMs !== undefined) {
      const body = `retry: ${reply.retryMs}\n\n`;
      res.writeHead(200, SSE_HEADERS).end(body);
      const outcome: WriteOutcome = { result: 'completed', status: 200, committed: true, values: 0, bytes: Buffer.byteLength(body) };
      reply.end(outcome);
      return Promise.resolve(outcome);
    }
    if (reply.headers !== undefined) for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
    const { demand, heartbeatAfter, onValue, options } = reply;
    // This request's fields first, the wire's shared options spread after (their type excludes `demand` and
    // `onValue`): V8 gives an object spread and then extended a hidden class of its own, kept for the life of the stream.
    const written = CHAT_WIRES[reply.wire].send(
      res,
      reply.source,
      onValue === undefined ? { demand, heartbeatAfter, ...options } : { demand, heartbeatAfter, onValue, ...options },
    );
    if (closeUnread) void written.then(() => closeUnreadRequest(req));
    void written.then(reply.end);
    return written;
  };
  /** Writes a reply that may first need a look at the stream log (a resume). */
  const settle = (reply: ChatReply | Promise<ChatReply>, req: IncomingMessage, res: ServerResponse, closeUnread = true): Promise<WriteOutcome> =>
    reply instanceof Promise ? reply.then((made) => write(made, req, res, closeUnread)) : write(reply, req, res, closeUnread);
  return {
    post: (wire, req, res, platform) => settle(core.post(wire, exchangeOf(req, res, platform)), req, res),
    completions: (req, res, platform) => core.completions(exchangeOf(req, res, platform)).then((reply) => write(reply, req, res)),
    ui: (req, res, platform) => settle(core.ui(exchangeOf(req, res, platform)), req, res),
    uiResume: (req, res, chatId) => settle(core.uiResume(exchangeOf(req, res), chatId), req, res),
    messages: (req, res, platform) => core.messages(exchangeOf(req, res, platform)).then((reply) => write(reply, req, res)),
    countTokens: (req, res, platform) => write(core.countTokens(exchangeOf(req, res, platform)), req, res),
    models: (req, res) => write(core.models(exchangeOf(req, res)), req, res, false),
    query: (req, res, q) => settle(core.query(exchangeOf(req, res), q), req, res),
    token: (req, res) => write(core.token(exchangeOf(req, res)), req, res),
    resume: (req, res, id) => settle(core.resume(exchangeOf(req, res), id), req, res),
    cancel: (req, res, id) => write(core.cancel(exchangeOf(req, res), id), req, res),
    servesTokens: core.servesTokens,
  };
}
