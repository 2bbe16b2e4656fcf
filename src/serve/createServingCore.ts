import { setMaxListeners } from 'node:events';
import { defer, Observable, of, tap, throwError } from 'rxjs';
import type { ChatCallOptions } from '../client/createChatClient.js';
import { createDemandGate } from '../core/createDemandGate.js';
import { isStreamLogError, RequestError, ShutdownError, StreamLogError } from '../core/errors.js';
import { parseChatRequest } from '../core/parseChatRequest.js';
import type { ChatRequest, Usage } from '../core/schemas/index.js';
import { VALIDATED_CHAT_REQUESTS } from '../core/VALIDATED_CHAT_REQUESTS.js';
import { fromAnthropicRequest } from '../core/fromAnthropicRequest.js';
import { fromUiChatRequest } from '../core/fromUiChatRequest.js';
import { acceptsRestart, ACCEPT_RESTART_HEADER } from './acceptsRestart.js';
import { anthropicExchange } from './anthropicExchange.js';
import { assertJsonContentType } from './assertJsonContentType.js';
import { assertOneChoice } from './assertOneChoice.js';
import { authorizeBearer } from './authorizeBearer.js';
import { bearerKey } from './bearerKey.js';
import { clientKeyOfKey } from './clientKeyOfKey.js';
import { createChatStreamIndex } from './createChatStreamIndex.js';
import { createStreamId } from './createStreamId.js';
import type { ChatExchange } from './ChatExchange.js';
import type { ChatReply, ReplyOptions } from './ChatReply.js';
import { countMessageTokens } from './countMessageTokens.js';
import { finishedReconnect } from './finishedReconnect.js';
import { openAiModelList } from './openAiModelList.js';
import { produceLogged, type ProduceLoggedConfig } from './produceLogged.js';
import { readLogged } from './readLogged.js';
import { resolveResumable } from './resolveResumable.js';
import { STREAM_HEADERS } from './STREAM_HEADERS.js';
import { subscribeAhead } from './subscribeAhead.js';
import { streamEventId } from './streamEventId.js';
import { readChatQuery } from './readChatQuery.js';
import { resolveServingSettings } from './resolveServingSettings.js';
import { routeReportOf } from './routeReportOf.js';
import { SERVING_WIRES, type ChatWireFormat } from './SERVING_WIRES.js';
import type { ServingCoreConfig } from './ServingCoreConfig.js';
import { toChatRequestLog } from './toChatRequestLog.js';
import { tokenParameter } from './tokenParameter.js';
import { toRequestError } from './toRequestError.js';
import { usageOf } from './usageOf.js';
import type { WriteOutcome } from './WriteOutcome.js';
import type { StreamProducer } from '../store/StreamProducer.js';

/** The serving core's entries, one per endpoint: see {@link createServingCore}. */
export interface ServingCore<R = unknown> {
  /**
   * `POST /chat/json`, `/chat/stream` or `/chat/sse`: key (401), client limit (429), media type (415), body (413, 408,
   * 400), schema (400), `n` (400), then the client's answer on `wire`.
   */
  post(wire: ChatWireFormat, exchange: ChatExchange<R>): ChatReply | Promise<ChatReply>;
  /**
   * `GET /chat/sse?q=` (and `HEAD` of it): a reconnect of a finished answer gets 204 (`noContent`); else key or
   * `token` (401), client limit (429), `q` (400, 413; without it the `demoRequest`), schema (400), on the
   * `eventsource` wire.
   *
   * With `resumable`, a `Last-Event-ID` naming a resumable answer (an `EventSource` reconnecting) resumes it after that
   * event instead (see `resume`) — with its `token` even expired, if it was valid at that answer's start (the
   * `EventSource`'s URL cannot change); so does one on `POST /chat/sse` (`fetch-event-source`): hence a promise then.
   *
   * @param q - The `q` query parameter as the transport parsed it (a string, an array when repeated, or `undefined`).
   */
  query(exchange: ChatExchange<R>, q: unknown): ChatReply | Promise<ChatReply>;
  /** OpenAI's `POST /v1/chat/completions`: the checks of `post`, then the `openai-sse` or `openai` wire by `stream`. */
  completions(exchange: ChatExchange<R>): Promise<ChatReply>;
  /**
   * Anthropic's `POST /v1/messages`: its `x-api-key` (or Bearer) checked as the gateway's key, the checks of `post`
   * on the request `fromAnthropicRequest` makes of the body, then the `anthropic-sse` or `anthropic` wire by `stream`.
   */
  messages(exchange: ChatExchange<R>): Promise<ChatReply>;
  /**
   * The AI SDK's `POST /chat/ui` (`useChat`'s `DefaultChatTransport`): the checks of `post` on the request
   * `fromUiChatRequest` makes of the body (its `model`, else the default), then the `ui` wire (the UI message stream);
   * every refusal is the protocol's error part with its status. With `resumable` and `resume: true` beside `messages`,
   * the answer is logged and remembered as its chat's latest (`id`), for `uiResume`.
   */
  ui(exchange: ChatExchange<R>): Promise<ChatReply>;
  /**
   * The AI SDK's `GET /chat/ui/{chatId}/stream` (`useChat({ resume: true })`): key (401), then the client's running
   * answer of that chat replayed from its start on the `ui` wire — or 204 when there is none (never asked to be
   * resumable, finished, another key's, unknown, or pushed out of the bounded index).
   *
   * @param chatId - The `{chatId}` path segment, as the transport decoded it.
   */
  uiResume(exchange: ChatExchange<R>, chatId: string): Promise<ChatReply>;
  /** Anthropic's `POST /v1/messages/count_tokens`: the checks of `messages`, then an estimate (`countMessageTokens`). */
  countTokens(exchange: ChatExchange<R>): ChatReply;
  /** OpenAI's `GET /v1/models`: key (401), then the model list. */
  models(exchange: ChatExchange<R>): ChatReply;
  /** `POST /chat/token`: key (401), then `{ token, expiresAt }` with `Cache-Control: no-store`; without keys, 400. */
  token(exchange: ChatExchange<R>): ChatReply;
  /**
   * `GET /chat/streams/{id}`: key or `token` (401), client limit (429), then the resumable answer `id` after a position
   * — SSE when `Accept` has `text/event-stream` (after `Last-Event-ID`, else `?after=`), NDJSON otherwise (`?after=`,
   * else from the start) — with the bytes the original response would have sent from there. An unknown id, another
   * key's, or one past its retention: SSE 204 (an `EventSource` stops), NDJSON 404 `stream_not_found`. The shared log
   * unreachable: SSE `retry:` and the end (an `EventSource` comes back), NDJSON 503 with `Retry-After`.
   *
   * @param id - The `{id}` path segment, as the transport decoded it.
   */
  resume(exchange: ChatExchange<R>, id: string): Promise<ChatReply>;
  /**
   * `POST /chat/streams/{id}/cancel`: key (401), then stops the answer wherever it is produced (`{ id, cancelled }`:
   * `false` when it had ended already); another key's or an unknown id: 404 `stream_not_found`.
   *
   * @param id - The `{id}` path segment, as the transport decoded it.
   */
  cancel(exchange: ChatExchange<R>, id: string): ChatReply;
  /** Whether `token` has tokens to give (`apiKeys` are configured). */
  readonly servesTokens: boolean;
}

/** The state of one request across its checks and its answer. */
interface Pending {
  /** Frees the client's place, unless the transport holds it (`ChatExchange.hold`). */
  release?: () => void;
  /** The caller a route's breakers count this request's failures by: the client it was admitted as (`callerOf`). */
  caller?: string;
  /** Who may resume or cancel the answer: the hash of the request's key (`''` without keys). */
  owner?: string;
  /**
   * Keeps the client's place taken for this request until the returned function is called too (a resumable answer's
   * producer: it runs on after its response closed); set by `admit`.
   */
  keepPlace?: () => () => void;
  /** Under token limits: counts what the answer emitted and its usage, for the settlement (`RateLimitAdmitted.observe`). */
  observe?: (pieces: number, usage: Usage | undefined) => void;
  /** Under token limits: tells `observe` the pieces written and the last value's usage, once, before the settlement. */
  counted?: () => void;
  /** Under token limits: told when the upstream is asked and when the answer fails (`RateLimitAdmitted.upstream`). */
  upstream?: (state: 'asked' | 'failed') => void;
  /** The response has ended (`endPending`): a place admitted after that is freed at once. */
  ended?: boolean;
}

/** The reply's end of `pending`: its place freed — and one still being admitted (the client went away meanwhile) freed once admitted. */
const endPending = (pending: Pending): void => {
  pending.ended = true;
  pending.release?.();
};

/**
 * The wires whose answers are resumable (the streamed endpoints of the contract); `ui` too, when its request asks for
 * it (`resume: true`: a disconnect is then not a stop, see `ServingCore.ui`).
 */
const RESUMABLE_WIRES: ReadonlySet<ChatWireFormat> = new Set<ChatWireFormat>(['ndjson', 'sse', 'eventsource']);
/** Whether a resumable answer's wire writes its logged values as SSE frames with their `id:` (`loggedFrame`). */
const loggedAsFrames = (wire: ChatWireFormat): boolean => wire === 'sse' || wire === 'eventsource';
/** What a resumable answer's producer hands its client's wire (see `ProduceLoggedConfig.as`). */
const producedAs = (wire: ChatWireFormat): ProduceLoggedConfig['as'] => (loggedAsFrames(wire) ? 'frame' : wire === 'ndjson' ? 'line' : 'value');

/**
 * THE serving core of every endpoint, written once for every transport: node's `createChatEndpoints` (hence
 * Express's `chatRouter` and NestJS's `ChatfluxModule`) and the web handlers (`createChatHandlers`: Hono, Next.js,
 * Bun, Deno) make their request into a {@link ChatExchange} and write the {@link ChatReply} it answers with, so every
 * transport answers with the same checks, statuses, messages, bytes and log entries.
 *
 * ```text
 * exchange ─► shutting down? 503 ─► key? 401 ─► client under its limit? 429 ─► application/json? 415
 *          ─► body (exchange.readBody) 413/408/400/415 ─► parseChatRequest 400 ─► n > 1? 400
 *          ─► SERVING_WIRES[wire].call(client) ─► reply { wire, source, demand, heartbeatAfter, end } ─► log entry
 * ```
 *
 * 1. Every refusal is an error of the reply's source, so it is written by the same writer as the answer: a real
 *    status, the endpoint's error format, `WWW-Authenticate` on 401, `Retry-After` on 429 and 503.
 * 2. Each request gets its own demand gate, shared by the client (the upstream read) and the writer.
 * 3. The request is validated once: the client takes the parsed request as it is (`VALIDATED_CHAT_REQUESTS`).
 * 4. `log` receives one entry per request of the chat endpoints and OpenAI's completions, refusals included.
 * 5. With a `shutdown`, a request while it drains gets 503 `shutting_down` and `Connection: close`; every response
 *    is tracked until its reply's `end`.
 *
 * @param config - The client and the endpoints' options.
 * @returns The core's entries.
 * @throws ConfigError naming a wrong option (see `resolveServingSettings`).
 */
export function createServingCore<R>(config: ServingCoreConfig<R>): ServingCore<R> {
  const { client, shutdown, log, onHeartbeat } = config;
  const custom = config.clientKey;
  const settings = resolveServingSettings(config);
  const resumable = resolveResumable(config.resumable);
  /** `useChat`'s chat ids → their latest resumable answer, per client (bounded; see `uiResume`). */
  const chatStreams = resumable === undefined ? undefined : createChatStreamIndex();
  const { keys, bodyLimit, bodyTimeoutMs, stallTimeoutMs, maxLogFieldChars, queryLimit, secrets, parseConfig, tokens } = settings;
  const clientKey = (exchange: ChatExchange<R>): string => (custom === undefined ? exchange.defaultClientKey(keys.length > 0) : custom(exchange.request));
  let signal = shutdown?.signal ?? config.signal;
  if (shutdown !== undefined && config.signal !== undefined) {
    signal = AbortSignal.any([shutdown.signal, config.signal]);
    setMaxListeners(0, signal); // one `abort` listener per response in flight
  }
  const shared: ReplyOptions = { secrets, ...(signal === undefined ? {} : { signal }), heartbeatMs: settings.heartbeatMs };
  /** Each wire's writer options, made once: with its own `onHeartbeat` (no closure per request). */
  const wireOptions = new Map<ChatWireFormat, ReplyOptions>();
  const optionsOf = (wire: ChatWireFormat): ReplyOptions => {
    let made = wireOptions.get(wire);
    if (made === undefined) {
      const { endpoint } = SERVING_WIRES[wire];
      made = onHeartbeat === undefined ? shared : { ...shared, onHeartbeat: () => onHeartbeat(endpoint) };
      wireOptions.set(wire, made);
    }
    return made;
  };
  const draining = (): boolean => shutdown?.isDraining === true;
  /** Counts a response in the shutdown until `end` is called; returns that `end`. */
  const tracked = (): ((outcome: WriteOutcome) => void) => {
    if (shutdown === undefined) return () => undefined;
    let ended: (outcome: WriteOutcome) => void = () => undefined;
    void shutdown.track(new Promise<WriteOutcome>((resolve) => (ended = resolve)));
    return (outcome) => ended(outcome);
  };
  /**
   * Admits one more request of `client` until its response closes (the transport's hold) or ends — and, for a
   * resumable answer, until its producer stops too (`keepPlace`): a client that went away does not free the place of
   * an upstream request still running for it — or refuses it (429): the per-process place (`maxConcurrentPerClient`),
   * then, with `limits`, the store's decision, whose rate-limit headers are set on the response before its first byte
   * (and on the refusal).
   */
  const admit = async (exchange: ChatExchange<R>, pending: Pending, client: string, request?: ChatRequest): Promise<void> => {
    let release = settings.admit(client);
    if (settings.limiter !== undefined) {
      const setHeader = exchange.setHeader?.bind(exchange);
      let admitted;
      try {
        admitted = await settings.limiter.admit(client, setHeader, request);
      } catch (error) {
        release();
        throw error;
      }
      for (const [name, value] of Object.entries(admitted.headers)) setHeader?.(name, value);
      if (admitted.observe !== undefined) pending.observe = admitted.observe;
      if (admitted.upstream !== undefined) pending.upstream = admitted.upstream;
      const own = release;
      release = () => {
        own();
        pending.counted?.();
        admitted.release();
      };
    }
    let holders = 1;
    const holder = (): (() => void) => {
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        if (--holders === 0) release();
      };
    };
    pending.keepPlace = () => {
      holders++;
      return holder();
    };
    if (exchange.hold === undefined) {
      pending.release = holder();
      if (pending.ended === true) pending.release(); // its response ended while the store decided: nothing else frees it
    }
    else exchange.hold(holder());
    // The caller a route's breakers count this request's failures by: the client it was admitted as (a token GET's
    // too), when clients are told apart (`settings.callerOf`).
    const caller = settings.callerOf(client, custom !== undefined);
    if (caller !== undefined) pending.caller = caller;
  };

  /**
   * The key check of a request that may come with `?token=` (`GET /chat/sse`, `GET /chat/streams/{id}`): the Bearer
   * key (401), or a valid token. Sets `pending.owner`; returns the client to admit (`admit`, 429).
   */
  const authorizeGet = (exchange: ChatExchange<R>, pending: Pending): string => {
    const token = tokenParameter(exchange.url);
    const authorization = exchange.header('authorization');
    if (tokens === undefined || token === undefined || authorization !== undefined) {
      authorizeBearer(authorization, keys);
      pending.owner = ownerOfKey(authorization);
      return clientKey(exchange);
    }
    const client = settings.tokenClient(token, custom === undefined ? undefined : () => custom(exchange.request));
    pending.owner = clientKeyOfKey(tokens.verify(token) ?? '');
    return client;
  };
  /** The owner of a request's answers: the hash of its Bearer key (checked already), `''` without keys. */
  const ownerOfKey = (authorization: string | undefined): string => (keys.length === 0 ? '' : clientKeyOfKey(bearerKey(authorization) ?? ''));

  /**
   * Serves one request on `wire`: `read` resolves with the valid request or rejects with the refusal to send.
   * `started`: when the request came; `ended`: its shutdown tracking (OpenAI's endpoint reads its body before it
   * knows its wire, and tracks from the start); `chat`: a `ui` answer to make resumable under its chat id.
   */
  const serve = (
    wire: ChatWireFormat,
    exchange: ChatExchange<R>,
    pending: Pending,
    read: () => Promise<ChatRequest> | ChatRequest,
    started = performance.now(),
    ended = tracked(),
    chat?: { client: string; id: string },
  ): ChatReply => {
    const { endpoint, call } = SERVING_WIRES[wire];
    const demand = createDemandGate({ stallTimeoutMs });
    // A resumable answer: its id now (a header), its producer once the request is valid.
    const streamId = resumable !== undefined && (RESUMABLE_WIRES.has(wire) || chat !== undefined) ? createStreamId() : undefined;
    // Its headers, sent once the request is valid: a refusal (401, 429, 400…) names no stream, since none is started.
    const streamHeaders =
      streamId === undefined || resumable === undefined
        ? undefined
        : { [STREAM_HEADERS.id]: streamId, ...(resumable.log.health() === 'local' ? { [STREAM_HEADERS.resumable]: 'local' } : {}) };
    const refuseAll = draining();
    let model: string | undefined;
    let last: unknown; // the last value written: the one that carries the usage and the route report, read once at the end
    // The heartbeat waits for the request: one written while its body still arrives would commit the 200, and its
    // refusal (400, 408, 413) would go in-band under it.
    let requestRead: () => void = () => undefined;
    const heartbeatAfter = new Promise<void>((resolve) => (requestRead = resolve));
    // The checks, then the client's answer subscribed with the writer's own subscriber: no operator between the
    // client and the writer, so each chunk costs what it costs without the core.
    // Each value written: the last one (the request log's usage and route; under token limits, the settlement's usage,
    // read once at the release: `pending.counted`) and their count (the pieces emitted). One hook, for the writer or for
    // the producer of a resumable answer.
    let pieces = 0;
    const onValue =
      log === undefined && pending.observe === undefined && settings.limiter?.weighs !== true
        ? undefined
        : (value: unknown) => {
            last = value;
            pieces++;
          };
    if (settings.limiter?.weighs === true) pending.counted = () => pending.observe?.(pieces, usageOf(last));
    const source = new Observable<unknown>((subscriber) => {
      const answer = async (): Promise<void> => {
        if (refuseAll) throw new ShutdownError();
        const request = await read();
        if (streamHeaders !== undefined) for (const [name, value] of Object.entries(streamHeaders)) exchange.setHeader?.(name, value); // an answer starts: named
        requestRead();
        if (subscriber.closed) return;
        model = request.model ?? client.model;
        if (exchange.method === 'HEAD') return subscriber.complete(); // GET's status and headers; the upstream is not called
        VALIDATED_CHAT_REQUESTS.add(request);
        // Who asks lets a route's breakers tell one client's failures from an outage (see `admit`); a client may
        // accept a restarted answer (`Chatflux-Accept-Restart`).
        const { caller } = pending;
        const options: ChatCallOptions = caller === undefined ? { demand } : { demand, caller };
        if (acceptsRestart(exchange.header(ACCEPT_RESTART_HEADER))) options.acceptRestart = true;
        const { observe, upstream } = pending;
        const called = observe === undefined ? call(client, request, options) : call(client, request, options, (usage) => observe(0, usage));
        // Token limits: an upstream asked is charged its prompt, unless it refused (see `RateLimitAdmitted.upstream`).
        const answer$ = upstream === undefined ? called : defer(() => (upstream('asked'), called)).pipe(tap({ error: () => upstream('failed') }));
        if (streamId === undefined || resumable === undefined) return void answer$.subscribe(subscriber);
        const { abandonAfterMs } = resumable;
        // The upstream request goes out now, while the stream log opens (the shared log's open is a round trip to
        // Redis): what the answer emits meanwhile waits for the producer. A log that cannot open aborts the request.
        // The upstream request keeps its client's place until it stops: taken before it goes out (the client may go
        // away while the log opens, and its response's end must not free the place of the answer still running).
        const keep = pending.keepPlace?.();
        const ahead = subscribeAhead(answer$);
        let producer: StreamProducer;
        try {
          producer = await resumable.log.open(streamId, { ownerKeyHash: pending.owner ?? '', wire }, abandonAfterMs === undefined ? {} : { abandonAfterMs });
        } catch (error) {
          ahead.cancel();
          keep?.();
          throw error;
        }
        let onEnd = keep;
        if (chat !== undefined && chatStreams !== undefined) {
          // The chat's latest answer while it runs: GET /chat/ui/{chatId}/stream resumes a running answer only.
          chatStreams.set(chat.client, chat.id, streamId);
          onEnd = () => {
            keep?.();
            chatStreams.delete(chat.client, chat.id, streamId);
          };
        }
        produceLogged(producer, ahead.source, subscriber, {
          as: producedAs(wire),
          secrets,
          ...(onEnd === undefined ? {} : { onEnd }),
          ...(onValue === undefined ? {} : { onValue }),
        });
      };
      answer().catch((error: unknown) => {
        exchange.refused?.();
        subscriber.error(error);
      });
    });
    const end = (outcome: WriteOutcome): void => {
      endPending(pending);
      log?.(
        toChatRequestLog({ endpoint, method: exchange.method, started, outcome, model, usage: usageOf(last), route: routeReportOf(last), secrets, maxLogFieldChars }),
      );
      ended(outcome);
    };
    const headers: Record<string, string> = refuseAll ? { Connection: 'close' } : {};
    // A transport that cannot set a header once the request is valid (no `setHeader`) names the stream up front.
    if (streamHeaders !== undefined && exchange.setHeader === undefined) Object.assign(headers, streamHeaders);
    return {
      wire,
      source,
      demand,
      heartbeatAfter,
      ...(onValue === undefined || streamId !== undefined ? {} : { onValue }),
      options: optionsOf(wire),
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      end,
    };
  };
  /**
   * Resumes the answer `id` on `wire` after `after` (see `ServingCore.resume`); `wire` and `after` absent: from the
   * request (`Accept`, `Last-Event-ID`, `?after=`).
   */
  const resume = async (
    exchange: ChatExchange<R>,
    id: string,
    asked?: { wire: ChatWireFormat; after: number; client: string; running?: boolean },
    pending: Pending = {},
  ): Promise<ChatReply> => {
    const ended = tracked();
    const sseAsked = asked === undefined ? /\btext\/event-stream\b/i.test(exchange.header('accept') ?? '') : asked.wire !== 'ndjson';
    let wire: ChatWireFormat = asked?.wire ?? (sseAsked ? 'eventsource' : 'ndjson');
    const end = (outcome: WriteOutcome): void => {
      endPending(pending);
      ended(outcome);
    };
    try {
      if (draining()) throw new ShutdownError();
      const reader = asked?.client ?? authorizeGet(exchange, pending);
      const after = asked?.after ?? afterOf(exchange, sseAsked);
      const notFound = (): ChatReply => {
        if (sseAsked) return { wire, source: of(), options: shared, noContent: { result: 'completed', status: 204, committed: false, values: 0, bytes: 0 }, end };
        throw new StreamLogError('stream_not_found', id, 'no such stream for this key: it never existed or its retention has passed');
      };
      if (resumable === undefined) return notFound();
      let meta;
      try {
        meta = await resumable.log.meta(id);
      } catch (error) {
        if (!(isStreamLogError(error) && error.code === 'stream_unavailable')) throw error;
        if (!sseAsked) throw new StreamLogError('stream_unavailable', id, error.message, { retryAfterSeconds: Math.ceil(resumable.retryAfterMs / 1000) });
        return { wire, source: of(), options: shared, retryMs: resumable.retryAfterMs, end };
      }
      if (meta === undefined || meta.ownerKeyHash !== (pending.owner ?? '') || (asked?.running === true && meta.state !== 'running')) return notFound();
      // A reader of its own running answer takes no place of its own: the answer's producer holds the one its
      // request took (a client at its limit can always resume its answer). A finished one is replayed as a request.
      if (meta.state !== 'running') await admit(exchange, pending, reader);
      if (asked === undefined && sseAsked && meta.wire === 'sse') wire = 'sse'; // POST /chat/sse's frames (its end has no `id: done`)
      if (meta.wire === 'ui') wire = 'ui'; // the UI message stream's parts, whatever was asked
      const demand = createDemandGate({ stallTimeoutMs });
      const source = readLogged(resumable.log, id, after, loggedAsFrames(wire), demand);
      return { wire, source, demand, options: optionsOf(wire), headers: { [STREAM_HEADERS.id]: id }, end };
    } catch (error) {
      return { wire, source: throwError(() => error), options: shared, end };
    }
  };
  /** The position a resume reads after: SSE's `Last-Event-ID` of this stream, else `?after=`, else -1 (from the start). */
  const afterOf = (exchange: ChatExchange<R>, sse: boolean): number => {
    const named = sse ? streamEventId.parse(exchange.header('last-event-id')) : undefined;
    if (named !== undefined) return named.position;
    if (!/[?&]after=/.test(exchange.url)) return -1;
    const values = new URL(exchange.url, 'http://localhost').searchParams.getAll('after');
    const after = values.length === 1 ? Number(values[0]) : Number.NaN;
    if (!/^(-1|0|[1-9][0-9]{0,15})$/.test(values[0] ?? '') || !Number.isSafeInteger(after)) {
      throw new RequestError('invalid_request', '`after` must be one position: an integer from -1 (the start) up');
    }
    return after;
  };
  /**
   * A reconnect of `POST /chat/sse` or `GET /chat/sse` whose `Last-Event-ID` names a resumable answer (what an
   * `EventSource` or `fetch-event-source` sends): the key check, then that answer after it — never a new one.
   */
  const reconnect = (exchange: ChatExchange<R>, wire: 'sse' | 'eventsource'): Promise<ChatReply> | undefined => {
    const named = resumable === undefined ? undefined : streamEventId.parse(exchange.header('last-event-id'));
    if (named === undefined) return undefined;
    const pending: Pending = {};
    let client: string;
    try {
      if (wire === 'sse') {
        authorizeBearer(exchange.header('authorization'), keys);
        pending.owner = ownerOfKey(exchange.header('authorization'));
        client = clientKey(exchange);
      } else client = authorizeGet(exchange, pending);
    } catch (error) {
      const refused = (reason: unknown = error): ChatReply => ({ wire, source: throwError(() => reason), options: shared, end: tracked() });
      return wire === 'eventsource' ? resumeByStartToken(exchange, named, refused) : Promise.resolve(refused());
    }
    return resume(exchange, named.id, { wire, after: named.position, client }, pending);
  };
  /**
   * An `EventSource` reconnecting with a `?token=` that expired since: its URL cannot change, so the token resumes the
   * answer it was valid at the start of (its key's, until the answer's retention), never another nor a new one.
   */
  const resumeByStartToken = async (
    exchange: ChatExchange<R>,
    named: { id: string; position: number },
    refused: (reason?: unknown) => ChatReply,
  ): Promise<ChatReply> => {
    const token = tokenParameter(exchange.url);
    if (tokens === undefined || resumable === undefined || token === undefined || exchange.header('authorization') !== undefined) return refused();
    // One this server signed (valid at time 0: its signature and its key checked, not its expiry) before the log is
    // read: a forged token costs no I/O.
    if (tokens.verify(token, 0) === undefined) return refused();
    const meta = await resumable.log.meta(named.id).catch(() => undefined);
    // Valid at the answer's start: not expired then (`verify` at `createdAt`), and issued by then — a token issued
    // after it would still be valid `ttlMs` later (one from an access log must not open the key's older answers).
    const validAtStart = meta !== undefined && tokens.verify(token, meta.createdAt + tokens.ttlMs) === undefined;
    const key = validAtStart ? tokens.verify(token, meta.createdAt) : undefined;
    if (key === undefined || clientKeyOfKey(key) !== meta?.ownerKeyHash) return refused();
    let client: string;
    try {
      client = custom === undefined ? clientKeyOfKey(key) : custom(exchange.request);
    } catch (error) {
      return refused(error); // a custom clientKey that throws: refused as any request it throws for
    }
    return resume(exchange, named.id, { wire: 'eventsource', after: named.position, client }, { owner: meta.ownerKeyHash });
  };
  /** The checks and the body of a POST: key, client limit, media type, body, schema and policy. */
  const readPost = async (exchange: ChatExchange<R>, pending: Pending, translate?: (body: unknown) => unknown, weigh = true): Promise<ChatRequest> => {
    authorizeBearer(exchange.header('authorization'), keys);
    pending.owner = ownerOfKey(exchange.header('authorization'));
    // Token limits weigh the request (its prompt, its max_tokens): it is admitted once read.
    const weighed = weigh && settings.limiter?.weighs === true;
    if (!weighed) await admit(exchange, pending, clientKey(exchange));
    assertJsonContentType(exchange.header('content-type'), exchange.hasBody);
    let body: unknown;
    try {
      body = await exchange.readBody(bodyLimit, bodyTimeoutMs);
    } catch (error) {
      throw toRequestError(error, bodyLimit) ?? error;
    }
    const request = parseChatRequest(translate === undefined ? body : translate(body), config.model, parseConfig);
    if (weighed) await admit(exchange, pending, clientKey(exchange), request);
    return request;
  };
  /** A reply of one value on the `json` or `openai` wire, checked by `answer` (not logged); `track`: in the shutdown. */
  const single = (wire: 'json' | 'openai', answer: () => unknown, track: boolean, headers?: Record<string, string>): ChatReply => ({
    wire,
    source: defer(() => of(answer())),
    options: shared,
    ...(headers === undefined ? {} : { headers }),
    end: track ? tracked() : () => undefined,
  });

  return {
    post: (wire, exchange) => {
      if (wire === 'sse') {
        const resumed = reconnect(exchange, 'sse');
        if (resumed !== undefined) return resumed;
      }
      const pending: Pending = {};
      return serve(wire, exchange, pending, async () => settings.checkChoices(await readPost(exchange, pending)));
    },
    completions: async (exchange) => {
      const started = performance.now();
      const ended = tracked();
      const pending: Pending = {};
      // The wire depends on the body's `stream`: the checks run first, then the request (or its refusal, in OpenAI's
      // error body) is served by the wire's writer, as `post` serves it.
      try {
        if (draining()) throw new ShutdownError();
        const request = assertOneChoice(await readPost(exchange, pending));
        return serve(request.stream === true ? 'openai-sse' : 'openai', exchange, pending, () => request, started, ended);
      } catch (error) {
        return serve('openai', exchange, pending, () => Promise.reject(error), started, ended); // the refusal: no model logged
      }
    },
    messages: async (exchange) => {
      const anthropic = anthropicExchange(exchange);
      const started = performance.now();
      const ended = tracked();
      const pending: Pending = {};
      // As `completions`: the wire depends on the body's `stream`, the refusal is Anthropic's error body.
      let stream = false;
      const translate = (body: unknown): unknown => {
        stream = (body as { stream?: unknown } | null)?.stream === true;
        return fromAnthropicRequest(body);
      };
      try {
        if (draining()) throw new ShutdownError();
        const request = await readPost(anthropic, pending, translate);
        return serve(stream ? 'anthropic-sse' : 'anthropic', anthropic, pending, () => request, started, ended);
      } catch (error) {
        return serve('anthropic', anthropic, pending, () => Promise.reject(error), started, ended);
      }
    },
    ui: async (exchange) => {
      const started = performance.now();
      const ended = tracked();
      const pending: Pending = {};
      // As `completions`: the body is read first, for its chat id and whether the answer is to be resumable.
      let chat: { client: string; id: string } | undefined;
      const translate = (body: unknown): unknown => {
        const { id, resume: resumeAsked } = (body ?? {}) as { id?: unknown; resume?: unknown };
        if (chatStreams !== undefined && resumeAsked === true && typeof id === 'string') chat = { client: clientKey(exchange), id };
        return fromUiChatRequest(body);
      };
      try {
        if (draining()) throw new ShutdownError();
        const request = await readPost(exchange, pending, translate);
        return serve('ui', exchange, pending, () => request, started, ended, chat);
      } catch (error) {
        return serve('ui', exchange, pending, () => Promise.reject(error), started, ended);
      }
    },
    uiResume: async (exchange, chatId) => {
      const pending: Pending = {};
      let client: string;
      try {
        authorizeBearer(exchange.header('authorization'), keys);
        pending.owner = ownerOfKey(exchange.header('authorization'));
        client = clientKey(exchange);
      } catch (error) {
        return { wire: 'ui', source: throwError(() => error), options: shared, end: tracked() };
      }
      const id = chatStreams?.get(client, chatId) ?? '';
      return resume(exchange, id, { wire: 'ui', after: -1, client, running: true }, pending);
    },
    countTokens: (exchange) => {
      const anthropic = anthropicExchange(exchange);
      const pending: Pending = {};
      const ended = tracked();
      const source = defer(async () => {
        if (draining()) throw new ShutdownError();
        return countMessageTokens(await readPost(anthropic, pending, (body) => fromAnthropicRequest(body, { countTokens: true }), false));
      });
      return { wire: 'anthropic', source, options: shared, end: (outcome) => (endPending(pending), ended(outcome)) };
    },
    models: (exchange) =>
      single('openai', () => {
        authorizeBearer(exchange.header('authorization'), keys);
        return openAiModelList(client, config);
      }, false),
    query: (exchange, q) => {
      const finished = finishedReconnect(exchange.header('last-event-id'));
      if (finished !== undefined) {
        // An EventSource reconnecting to a finished answer: 204 stops it; nothing is checked or called.
        const started = performance.now();
        const end = (outcome: WriteOutcome): void =>
          log?.(toChatRequestLog({ endpoint: '/chat/sse', method: exchange.method, started, outcome, secrets, maxLogFieldChars }));
        return { wire: 'eventsource', source: of(), options: shared, noContent: finished, end };
      }
      const resumed = reconnect(exchange, 'eventsource');
      if (resumed !== undefined) return resumed;
      const pending: Pending = {};
      return serve('eventsource', exchange, pending, async () => {
        const client = authorizeGet(exchange, pending);
        if (settings.limiter?.weighs !== true) await admit(exchange, pending, client);
        const request = settings.checkChoices(readChatQuery(q, queryLimit, config.demoRequest, config.model, parseConfig));
        if (settings.limiter?.weighs === true) await admit(exchange, pending, client, request);
        return request;
      });
    },
    token: (exchange) => single('json', () => settings.issueToken(exchange.header('authorization')), true, { 'Cache-Control': 'no-store' }),
    resume: (exchange, id) => resume(exchange, id),
    cancel: (exchange, id) => ({
      wire: 'json',
      source: defer(async () => {
        if (draining()) throw new ShutdownError();
        authorizeBearer(exchange.header('authorization'), keys);
        const owner = ownerOfKey(exchange.header('authorization'));
        const meta = resumable === undefined ? undefined : await resumable.log.meta(id);
        if (resumable === undefined || meta === undefined || meta.ownerKeyHash !== owner) {
          throw new StreamLogError('stream_not_found', id, 'no such stream for this key: it never existed or its retention has passed');
        }
        return { id, cancelled: await resumable.log.cancel(id) };
      }),
      options: shared,
      headers: { 'Cache-Control': 'no-store' },
      end: tracked(),
    }),
    servesTokens: tokens !== undefined,
  };
}
