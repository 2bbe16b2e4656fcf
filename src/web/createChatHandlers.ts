import { defer, Observable, of } from 'rxjs';
import { createDemandGate } from '../core/createDemandGate.js';
import { parseChatRequest } from '../core/parseChatRequest.js';
import type { ChatCallOptions } from '../client/createChatClient.js';
import type { ChatRequest } from '../core/schemas/index.js';
import { VALIDATED_CHAT_REQUESTS } from '../core/VALIDATED_CHAT_REQUESTS.js';
import { acceptsRestart, ACCEPT_RESTART_HEADER } from '../node/acceptsRestart.js';
import { assertJsonContentType } from '../node/assertJsonContentType.js';
import { assertOneChoice } from '../node/assertOneChoice.js';
import { authorizeBearer } from '../node/authorizeBearer.js';
import { bearerClientKey } from '../node/bearerClientKey.js';
import { finishedReconnect } from '../node/finishedReconnect.js';
import { CHAT_WIRES, type ChatWireFormat } from '../node/CHAT_WIRES.js';
import { openAiModelList } from '../node/openAiModelList.js';
import { readChatQuery } from '../node/readChatQuery.js';
import { resolveServingSettings } from '../node/resolveServingSettings.js';
import { toChatRequestLog } from '../node/toChatRequestLog.js';
import { tokenParameter } from '../node/tokenParameter.js';
import { toRequestError } from '../node/toRequestError.js';
import { routeReportOf } from '../node/routeReportOf.js';
import { usageOf } from '../node/usageOf.js';
import type { WriteOutcome } from '../node/WriteOutcome.js';
import { readRequestJson } from './readRequestJson.js';
import { toResponse } from './toResponse.js';
import type { WebChatHandlers, WebHandler } from './WebChatHandlers.js';
import type { WebChatHandlersConfig } from './WebChatHandlersConfig.js';

/** The default client key: the hashed Bearer key (as node's `clientKeyOf`), else one shared key. */
const defaultClientKey = (request: Request, byKey: boolean): string =>
  (byKey ? bearerClientKey(request.headers.get('authorization') ?? undefined) : undefined) ?? 'anonymous';

/**
 * The chat endpoints as web-standard handlers, `(request: Request) => Promise<Response>`, for Hono, Next.js route
 * handlers, Bun and Deno: the same checks, statuses, messages and bytes as the node serving core (`chatRouter`,
 * `ChatfluxModule`), written by {@link toResponse}.
 *
 * ```text
 * request ─► key? 401 ─► client under its limit? 429 ─► application/json? 415 ─► body (readRequestJson) 413/400/415
 *         ─► parseChatRequest 400 ─► n > 1? 400 ─► CHAT_WIRES[wire].call(client) ─► toResponse(…, wire)
 * ```
 *
 * 1. Each request gets its own demand gate, shared by the client (the upstream read) and the body (the client's pulls).
 * 2. The client going away (the body cancelled, or `request.signal` aborted) unsubscribes: the upstream is aborted.
 * 3. A body not complete within `bodyTimeoutMs` (30 s) gets 408 `request_timeout`.
 * 4. `sse` serves `GET ?q=` too, and `HEAD` of it with GET's checks, status and headers (the upstream not called) (key 401, `q` once 400, at most `queryLimit` characters 413, JSON 400, schema 400;
 *    without `q` the `demoRequest`). Its final frame tells the `EventSource` not to reconnect (`EVENT_SOURCE_WIRE`);
 *    a reconnect that does anyway (`Last-Event-ID` naming that frame) gets 204, which stops it.
 * 5. `token` serves `POST /chat/token` as the node core does: behind the key (401), `{ token, expiresAt }` with
 *    `Cache-Control: no-store`, a short-lived signed token (`tokenTtlMs`) that `sse`'s `GET ?token=…` takes in place
 *    of the `Authorization` header, counted as the same client; without `apiKeys`, 400 (do not route it then).
 * 6. `log` receives one entry per request of the three endpoints, the node core's entry (`toChatRequestLog`).
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
  const { client, log, onHeartbeat } = config;
  const settings = resolveServingSettings(config);
  const { keys, bodyLimit, bodyTimeoutMs, queryLimit, stallTimeoutMs, maxLogFieldChars, secrets, parseConfig, tokens } = settings;
  const clientKey = config.clientKey ?? ((request: Request) => defaultClientKey(request, keys.length > 0));
  /** `GET /chat/sse?q=…`, or `HEAD` of it (its checks, status and headers; the upstream is not called). */
  const isQuery = (request: Request, wire: ChatWireFormat): boolean =>
    wire === 'sse' && (request.method === 'GET' || request.method === 'HEAD');
  /** Who the request is, after its key or its `GET /chat/sse` token is checked (401 otherwise). */
  const authorize = (request: Request, wire: ChatWireFormat): string => {
    const authorization = request.headers.get('authorization') ?? undefined;
    const token = isQuery(request, wire) ? tokenParameter(request.url) : undefined;
    if (tokens === undefined || token === undefined || authorization !== undefined) {
      authorizeBearer(authorization, keys);
      return clientKey(request);
    }
    const custom = config.clientKey;
    return settings.tokenClient(token, custom === undefined ? undefined : () => custom(request));
  };

  const readPost = async (request: Request): Promise<ChatRequest> => {
    assertJsonContentType(request.headers.get('content-type') ?? undefined, request.body !== null);
    let body: unknown;
    try {
      body = await readRequestJson(request, bodyLimit, bodyTimeoutMs);
    } catch (error) {
      throw toRequestError(error, bodyLimit) ?? error;
    }
    return parseChatRequest(body, config.model, parseConfig);
  };
  const readQuery = (request: Request): ChatRequest => {
    const values = new URL(request.url).searchParams.getAll('q');
    const q = values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
    return readChatQuery(q, queryLimit, config.demoRequest, config.model, parseConfig);
  };

  /**
   * Serves one request on `wire` and logs it: `read` checks it and resolves with the valid request (or rejects with
   * the refusal to send), calling `admit` with its client once its key is accepted. `started`: when the request came;
   * `release`: the admission of a request checked before (OpenAI's endpoint reads its body before it knows its wire).
   */
  const serve = (
    wire: ChatWireFormat,
    request: Request,
    read: (admit: (client: string) => void) => Promise<ChatRequest> | ChatRequest,
    started = performance.now(),
    release?: () => void,
    admitted?: string,
  ): Promise<Response> => {
    const { call, endpoint } = CHAT_WIRES[wire];
    const demand = createDemandGate({ stallTimeoutMs });
    let model: string | undefined;
    let last: unknown; // the last value written: the one that carries the usage and the route report, read once at the end
    // The heartbeat waits for the request (as the node core's): one written while its body still arrives would commit
    // the 200, and its refusal (400, 408, 413) would go in-band under it.
    let requestRead: () => void = () => undefined;
    const heartbeatAfter = new Promise<void>((resolve) => (requestRead = resolve));
    // The caller a route's breakers count this request's failures by: the client it was admitted as, as the node core's.
    let caller = admitted === undefined ? undefined : settings.callerOf(admitted, config.clientKey !== undefined);
    const admit = (who: string): void => {
      release = settings.admit(who);
      caller = settings.callerOf(who, config.clientKey !== undefined);
    };
    const source = new Observable<unknown>((subscriber) => {
      const answer = async (): Promise<void> => {
        const chatRequest = await read(admit);
        requestRead();
        if (subscriber.closed) return;
        model = chatRequest.model ?? client.model;
        if (request.method === 'HEAD') return subscriber.complete(); // GET's status and headers, as the node core
        VALIDATED_CHAT_REQUESTS.add(chatRequest);
        const options: ChatCallOptions = caller === undefined ? { demand } : { demand, caller };
        if (acceptsRestart(request.headers.get(ACCEPT_RESTART_HEADER))) options.acceptRestart = true;
        subscriber.add(call(client, chatRequest, options).subscribe(subscriber));
      };
      answer().catch((error: unknown) => subscriber.error(error));
    });
    return toResponse(source, wire, {
      demand,
      heartbeatAfter,
      secrets,
      requestSignal: request.signal,
      ...(config.signal === undefined ? {} : { signal: config.signal }),
      heartbeatMs: settings.heartbeatMs,
      ...(onHeartbeat === undefined ? {} : { onHeartbeat: () => onHeartbeat(endpoint) }),
      ...(log === undefined
        ? {}
        : {
            onValue: (value: unknown) => {
              last = value;
            },
          }),
      onEnd: (outcome) => {
        release?.();
        log?.(toChatRequestLog({ endpoint, method: request.method, started, outcome, model, usage: usageOf(last), route: routeReportOf(last), secrets, maxLogFieldChars }));
      },
    });
  };
  /** An `EventSource` reconnecting to a finished answer: 204 stops it; nothing is checked or called (as the node core). */
  const finished = (request: Request, outcome: WriteOutcome): Response => {
    const started = performance.now();
    log?.(toChatRequestLog({ endpoint: '/chat/sse', method: request.method, started, outcome, secrets, maxLogFieldChars }));
    return new Response(null, { status: 204 });
  };
  const handler =
    (wire: ChatWireFormat): WebHandler =>
    (request) => {
      const query = isQuery(request, wire);
      const reconnect = query ? finishedReconnect(request.headers.get('last-event-id')) : undefined;
      if (reconnect !== undefined) return Promise.resolve(finished(request, reconnect));
      // GET /chat/sse is an EventSource's: its wire's final frame tells it not to reconnect.
      return serve(query ? 'eventsource' : wire, request, async (admit) => {
        admit(authorize(request, wire));
        return settings.checkChoices(query ? readQuery(request) : await readPost(request));
      });
    };
  const token: WebHandler = async (request) => {
    const answer = defer(() => of(settings.issueToken(request.headers.get('authorization') ?? undefined)));
    const response = await toResponse(answer, 'json', {
      secrets,
      requestSignal: request.signal,
      ...(config.signal === undefined ? {} : { signal: config.signal }),
    });
    response.headers.set('Cache-Control', 'no-store');
    return response;
  };
  // OpenAI's endpoint: the checks first (its wire depends on the body's `stream`), then the node core's wires; logged
  // as the node core logs it (endpoint /v1/chat/completions, the request's model and usage).
  const completions: WebHandler = async (request) => {
    const started = performance.now();
    let release: (() => void) | undefined;
    let who: string | undefined;
    let chatRequest: ChatRequest;
    try {
      authorizeBearer(request.headers.get('authorization') ?? undefined, keys);
      who = clientKey(request);
      release = settings.admit(who);
      chatRequest = assertOneChoice(await readPost(request));
    } catch (error) {
      return serve('openai', request, () => Promise.reject(error), started, release); // the refusal: no model logged
    }
    return serve(chatRequest.stream === true ? 'openai-sse' : 'openai', request, () => chatRequest, started, release, who);
  };
  const models: WebHandler = (request) => {
    const list = defer(() => {
      authorizeBearer(request.headers.get('authorization') ?? undefined, keys);
      return of(openAiModelList(client, config));
    });
    return toResponse(list, 'openai', { secrets });
  };
  return { json: handler('json'), stream: handler('ndjson'), sse: handler('sse'), token, completions, models };
}
