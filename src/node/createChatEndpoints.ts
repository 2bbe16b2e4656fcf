import { setMaxListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import bytes from 'bytes';
import typeIs from 'type-is';
import { defer, Observable, of } from 'rxjs';
import type { ChatCallOptions, ChatClient } from '../client/createChatClient.js';
import { createDemandGate } from '../core/createDemandGate.js';
import { ShutdownError } from '../core/errors.js';
import type { RequestLimitsConfig } from '../core/requestLimits.js';
import { parseChatRequest } from '../core/parseChatRequest.js';
import type { ChatRequest } from '../core/schemas/index.js';
import type { RequestPolicyConfig } from '../core/RequestPolicyConfig.js';
import { VALIDATED_CHAT_REQUESTS } from '../core/VALIDATED_CHAT_REQUESTS.js';
import { CHAT_WIRES, type ChatWireFormat } from './CHAT_WIRES.js';
import type { ChatEndpoint, ChatRequestLog } from './ChatRequestLog.js';
import { clientKeyOf } from './clientKeyOf.js';
import { finishedReconnect } from './finishedReconnect.js';
import { closeUnreadRequest } from './closeUnreadRequest.js';
import { openAiModelList } from './openAiModelList.js';
import { sendJson } from './sendJson.js';
import { acceptsRestart, ACCEPT_RESTART_HEADER } from './acceptsRestart.js';
import { assertJsonContentType } from './assertJsonContentType.js';
import { assertOneChoice } from './assertOneChoice.js';
import { authorizeBearer } from './authorizeBearer.js';
import { readChatQuery } from './readChatQuery.js';
import { readJsonBody, type PlatformBody } from './readJsonBody.js';
import { resolveServingSettings } from './resolveServingSettings.js';
import { toChatRequestLog } from './toChatRequestLog.js';
import { tokenParameter } from './tokenParameter.js';
import { toRequestError } from './toRequestError.js';
import { routeReportOf } from './routeReportOf.js';
import { usageOf } from './usageOf.js';
import type { WriteOutcome } from './WriteOutcome.js';
import type { WriteResponseConfig } from './writeResponse.js';

/** Options of {@link createChatEndpoints}: those of `chatRouter` and `ChatfluxModule.forRoot`, with a client. */
export interface ChatEndpointsConfig {
  /** The client to serve from. */
  client: ChatClient;
  /** The model used when a request names none (otherwise the client's default applies). */
  model?: string;
  /** Accepted downstream Bearer keys; empty or absent: the endpoints are open. */
  apiKeys?: readonly string[];
  /** The JSON body limit (bytes, or a string such as `'1mb'`); larger bodies get 413. Default `'1mb'`. */
  bodyLimit?: number | string;
  /**
   * The longest wait for a whole request body, in ms; a slower body gets 408 `request_timeout` and its connection is
   * closed. Default 30000; `0`: none (Node's `requestTimeout`, 300 s, still applies).
   */
  bodyTimeoutMs?: number;
  /**
   * The most requests one client may have running at once (from the moment its key is accepted until its response
   * ends); past it, 429 `concurrency_limit` with `Retry-After`. A client is its Bearer key when `apiKeys` are
   * configured, else its remote address (see `clientKey`). Default 32; `0`: no limit.
   */
  maxConcurrentPerClient?: number;
  /**
   * Who a request comes from, for `maxConcurrentPerClient` (default `clientKeyOf(req, apiKeys configured)`). A
   * `GET /chat/sse?token=…` request counts by default as the client of its token's key; a custom `clientKey` is asked
   * about it as about any request (it has no `Authorization` header). The same client is a route's `caller` (its
   * breakers), when a custom `clientKey` or two or more keys tell clients apart.
   */
  clientKey?: (req: IncomingMessage) => string;
  /** Bounds checked before a body is validated (messages, nesting, values, characters, issues reported); see `DEFAULT_REQUEST_LIMITS`. */
  requestLimits?: RequestLimitsConfig;
  /** The longest `q` query parameter of `GET /chat/sse`, in characters; longer gets 413. Default 8192. */
  queryLimit?: number;
  /**
   * The write stall deadline, in ms: a response whose client has not read (its socket not drained) for this long is
   * ended — the upstream aborted (its connection released), the client's socket destroyed, the log entry `failed`
   * with the code `client_stalled`. Default 30000; `0`: none (a client that never reads holds its request forever).
   */
  writeStallTimeoutMs?: number;
  /**
   * The secret that signs the short-lived tokens of `POST /chat/token` (HMAC-SHA256; at least 16 characters). Absent:
   * a random secret of this process (tokens do not pass between instances: give a cluster one secret).
   */
  tokenSecret?: string;
  /** How long a token of `POST /chat/token` lets `GET /chat/sse?token=…` in, in ms. Default 60000. */
  tokenTtlMs?: number;
  /** SSE heartbeat interval in ms (`0` disables). Default 15000. */
  heartbeatMs?: number;
  /** The request `GET /chat/sse` serves when it has no `q`; absent: 400. */
  demoRequest?: ChatRequest;
  /**
   * More model names `GET /v1/models` lists (a gateway's routes), besides the default `model`, the client's and the
   * request policy's `allowedModels`.
   */
  models?: readonly string[];
  /** Receives one entry per request. */
  log?: (entry: ChatRequestLog) => void;
  /**
   * Called each time a streaming response writes its heartbeat (`: ping` on `/chat/sse`, `: keep-alive` on OpenAI's
   * stream), with the endpoint's path: a keep-alive metric without a look at every write.
   */
  onHeartbeat?: (endpoint: ChatEndpoint) => void;
  /** The longest string field of a log entry (model, error message, …), in characters; longer is cut. Default 1024. */
  maxLogFieldChars?: number;
  /** More literal secrets to redact from error messages (the `apiKeys` are always redacted). */
  secrets?: readonly string[];
  /** Aborting it ends every response in flight with an error (graceful shutdown). */
  signal?: AbortSignal;
  /**
   * Whether `/chat/json`, `/chat/stream` and `/chat/sse` forward a request's `n` > 1 (default `false`: 400
   * `invalid_request`, saying why). The contract has one message: the upstream generates — and bills — `n` answers, and
   * the client gets the first (`toOutput`, `toOutputChunks`). Allow it only for an upstream whose other choices you
   * want paid for anyway (cap it with `requestPolicy.maxN`). OpenAI's `POST /v1/chat/completions` refuses `n` > 1
   * whatever this says.
   */
  allowSeveralChoices?: boolean;
  /** What clients may ask for: allowed models, caps on `max_tokens` / `max_completion_tokens` and `n`, fields to strip (default: everything, forwarded intact). */
  requestPolicy?: RequestPolicyConfig;
  /**
   * A graceful shutdown (`createGracefulShutdown`, NestJS's `ChatfluxShutdown`): while it drains, a new request gets
   * 503 `shutting_down` with `Connection: close`; each response is tracked until it ends; its signal ends them.
   */
  shutdown?: {
    /** True once the shutdown began. */
    readonly isDraining: boolean;
    /** Aborted when the responses in flight must end. */
    readonly signal: AbortSignal;
    /** Counts a response as in flight until `written` settles. */
    track<T>(written: Promise<T>): Promise<T>;
  };
}

/** The serving core: see {@link createChatEndpoints}. */
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
  const max = bytes.parse(ours);
  const length = Number(req.headers['content-length']);
  return typeof theirs === 'number' && max !== null && theirs < max && !(length > max) ? theirs : ours;
};

/**
 * THE serving core of the chat endpoints, which Express's `chatRouter` and NestJS's `ChatfluxModule` both call: every
 * check, every refusal, the client call and the writer are chosen here, so both adapters answer with the same
 * statuses, messages and bytes.
 *
 * ```text
 * request ─► shutting down? 503 ─► key? 401 ─► client under its limit? 429 ─► application/json? 415 ─► body (readJsonBody) 413/400/415
 *         ─► parseChatRequest 400 ─► n > 1? 400 ─► CHAT_WIRES[wire].call(client) ─► CHAT_WIRES[wire].send(res) ─► log entry
 * ```
 *
 * 1. Every refusal is an error of the writer's source, so it is written by the same writer as the answer: a real
 *    status, the endpoint's error format, `WWW-Authenticate` on 401, `Retry-After` on 503.
 * 2. Each request gets its own demand gate, shared by the client (the upstream read) and the writer (the socket).
 * 3. The request is validated once: the client takes the parsed request as it is (`VALIDATED_CHAT_REQUESTS`).
 * 4. `log` receives one entry per request, refusals included.
 * 5. OpenAI's `POST /v1/chat/completions` (`completions`) runs the same checks first, then serves the request on the
 *    wire its `stream` names (`openai-sse` or `openai`): the same client calls as `/chat/stream` and `/chat/json`.
 *
 * @param config - The client and the endpoints' options.
 * @returns The core's entries: `post`, `query`, and OpenAI's `completions` and `models`.
 */
export function createChatEndpoints(config: ChatEndpointsConfig): ChatEndpoints {
  const { client, shutdown, log } = config;
  const settings = resolveServingSettings(config);
  const { keys, bodyLimit, bodyTimeoutMs, stallTimeoutMs, maxLogFieldChars, queryLimit, secrets, parseConfig, tokens } = settings;
  const clientKey = config.clientKey ?? ((req: IncomingMessage) => clientKeyOf(req, keys.length > 0));
  // The caller a route's breakers count a request's failures by: the client it was admitted as (`settings.callerOf`).
  const callers = new WeakMap<IncomingMessage, string>();
  /** Admits one more request of this client (by default the request's, `clientKey`) until its response closes, or refuses it (429). */
  const admit = (req: IncomingMessage, res: ServerResponse, client = clientKey(req)): void => {
    res.once('close', settings.admit(client));
    const caller = settings.callerOf(client, config.clientKey !== undefined);
    if (caller !== undefined) callers.set(req, caller);
  };
  let signal = shutdown?.signal ?? config.signal;
  if (shutdown !== undefined && config.signal !== undefined) {
    signal = AbortSignal.any([shutdown.signal, config.signal]);
    setMaxListeners(0, signal); // one `abort` listener per response in flight
  }
  // The options every response shares; each request adds its own `demand` and `onValue` (typed out here, so that a
  // shared one can never override a request's).
  const writeConfig: Omit<WriteResponseConfig, 'demand' | 'onValue' | 'heartbeatAfter'> = {
    secrets,
    ...(signal === undefined ? {} : { signal }),
    heartbeatMs: settings.heartbeatMs,
  };
  const { onHeartbeat } = config;
  /** Each wire's writer options, made once: with its own `onHeartbeat` (no closure per request). */
  const wireConfigs = new Map<ChatWireFormat, Omit<WriteResponseConfig, 'demand' | 'onValue' | 'heartbeatAfter'>>();
  const writeConfigOf = (wire: ChatWireFormat): Omit<WriteResponseConfig, 'demand' | 'onValue' | 'heartbeatAfter'> => {
    let made = wireConfigs.get(wire);
    if (made === undefined) {
      const { endpoint } = CHAT_WIRES[wire];
      made = onHeartbeat === undefined ? writeConfig : { ...writeConfig, onHeartbeat: () => onHeartbeat(endpoint) };
      wireConfigs.set(wire, made);
    }
    return made;
  };

  /**
   * Serves one request: `read` resolves with the valid request or rejects with the error to send. `started`: when the
   * request came (OpenAI's endpoint reads its body before it knows its wire); `track`: count it in the shutdown here.
   */
  const serve = (
    wire: ChatWireFormat,
    req: IncomingMessage,
    res: ServerResponse,
    read: () => Promise<ChatRequest> | ChatRequest,
    started = performance.now(),
    track = true,
  ): Promise<WriteOutcome> => {
    const { endpoint, send, call } = CHAT_WIRES[wire];
    const demand = createDemandGate({ stallTimeoutMs });
    const draining = shutdown?.isDraining === true;
    if (draining) res.setHeader('Connection', 'close');
    let model: string | undefined;
    let last: unknown; // the last value written: the one that carries the usage and the route report, read once at the end
    // The heartbeat waits for the request: one written while its body still arrives would commit the 200, and its
    // refusal (400, 408, 413) would go in-band under it.
    let requestRead: () => void = () => undefined;
    const heartbeatAfter = new Promise<void>((resolve) => (requestRead = resolve));
    // The checks, then the client's answer subscribed with the writer's own subscriber: no operator between the
    // client and the writer, so each chunk costs what it costs without the core.
    const source = new Observable<unknown>((subscriber) => {
      const answer = async (): Promise<void> => {
        if (draining) throw new ShutdownError();
        const request = await read();
        requestRead();
        if (subscriber.closed) return;
        model = request.model ?? client.model;
        if (req.method === 'HEAD') return subscriber.complete(); // GET's status and headers; the upstream is not called
        VALIDATED_CHAT_REQUESTS.add(request);
        // Who asks lets a route's breakers tell one client's failures from an outage (see `callers`); a client may
        // accept a restarted answer (`Chatflux-Accept-Restart`).
        const caller = callers.get(req);
        const options: ChatCallOptions = caller === undefined ? { demand } : { demand, caller };
        if (acceptsRestart(req.headers[ACCEPT_RESTART_HEADER])) options.acceptRestart = true;
        call(client, request, options).subscribe(subscriber);
      };
      answer().catch((error: unknown) => {
        if (!req.complete && !res.headersSent) res.setHeader('Connection', 'close'); // refused before its body was read
        subscriber.error(error);
      });
    });
    const onValue =
      log === undefined
        ? undefined
        : (value: unknown) => {
            last = value;
          };
    // This request's fields first, the wire's shared options spread after (their type excludes `demand` and
    // `onValue`): V8 gives an object spread and then extended a hidden class of its own, kept for the life of the stream.
    const options = writeConfigOf(wire);
    const written = send(res, source, onValue === undefined ? { demand, heartbeatAfter, ...options } : { demand, heartbeatAfter, onValue, ...options });
    void written.then(() => closeUnreadRequest(req)); // a refused body still trickling is not read for minutes
    if (log !== undefined) {
      const method = req.method ?? 'POST';
      void written.then((outcome) =>
        log(toChatRequestLog({ endpoint, method, started, outcome, model, usage: usageOf(last), route: routeReportOf(last), secrets, maxLogFieldChars })),
      );
    }
    return shutdown === undefined || !track ? written : shutdown.track(written);
  };
  /** The checks and the body of a POST: key, client limit, media type, body, schema and policy. */
  const readPost = async (req: IncomingMessage, res: ServerResponse, platform: PlatformBody | undefined): Promise<ChatRequest> => {
    authorizeBearer(req.headers.authorization, keys);
    admit(req, res);
    assertJsonContentType(req.headers['content-type'], typeIs.hasBody(req));
    let body: unknown;
    try {
      body = await readJsonBody(req, res, bodyLimit, platform, bodyTimeoutMs);
    } catch (error) {
      throw toRequestError(error, limitRefusing(error, bodyLimit, req)) ?? error;
    }
    return parseChatRequest(body, config.model, parseConfig);
  };

  return {
    post: (wire, req, res, platform) => serve(wire, req, res, async () => settings.checkChoices(await readPost(req, res, platform))),
    completions: (req, res, platform) => {
      const started = performance.now();
      // The wire depends on the body's `stream`: the checks run first, then the request (or its refusal, in OpenAI's
      // error body) is served by the wire's writer, as `post` serves it.
      const checked = (async () => {
        if (shutdown?.isDraining === true) throw new ShutdownError();
        return assertOneChoice(await readPost(req, res, platform));
      })();
      const written = checked.then(
        (request) => serve(request.stream === true ? 'openai-sse' : 'openai', req, res, () => request, started, false),
        (error: unknown) => serve('openai', req, res, () => Promise.reject(error), started, false),
      );
      return shutdown === undefined ? written : shutdown.track(written);
    },
    models: (req, res) => {
      const list = defer(() => {
        authorizeBearer(req.headers.authorization, keys);
        return of(openAiModelList(client, config));
      });
      return CHAT_WIRES.openai.send(res, list, writeConfig);
    },
    query: (req, res, q) => {
      const finished = finishedReconnect(req.headers['last-event-id']);
      if (finished !== undefined) {
        // An EventSource reconnecting to a finished answer: 204 stops it; nothing is checked or called.
        const started = performance.now();
        res.writeHead(204).end();
        log?.(toChatRequestLog({ endpoint: '/chat/sse', method: req.method ?? 'GET', started, outcome: finished, secrets, maxLogFieldChars }));
        return Promise.resolve(finished);
      }
      return serve('eventsource', req, res, () => {
        const token = tokenParameter(req.url ?? '');
        if (tokens === undefined || token === undefined || req.headers.authorization !== undefined) {
          authorizeBearer(req.headers.authorization, keys);
          admit(req, res);
        } else {
          const custom = config.clientKey;
          admit(req, res, settings.tokenClient(token, custom === undefined ? undefined : () => custom(req)));
        }
        return settings.checkChoices(readChatQuery(q, queryLimit, config.demoRequest, config.model, parseConfig));
      });
    },
    token: (req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      const answer = defer(() => of(settings.issueToken(req.headers.authorization)));
      const written = sendJson(res, answer, writeConfig);
      void written.then(() => closeUnreadRequest(req));
      return shutdown === undefined ? written : shutdown.track(written);
    },
    servesTokens: tokens !== undefined,
  };
}
