import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { defer, type Observable } from 'rxjs';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../client/createChatClient.js';
import { CapacityError, RequestError } from '../core/errors.js';
import { toErrorResponse } from '../core/toErrorResponse.js';
import { clientKeyOf } from '../node/clientKeyOf.js';
import { createConcurrencyLimiter } from '../node/createConcurrencyLimiter.js';
import { matchesBearerKey } from '../node/matchesBearerKey.js';
import { sendJson } from '../node/sendJson.js';
import { sendNdjson } from '../node/sendNdjson.js';
import { sendSse } from '../node/sendSse.js';
import type { WriteOutcome } from '../node/WriteOutcome.js';
import type { ChatRequest, Usage } from '../core/schemas/index.js';
import { createDemandGate, type DemandGate } from '../core/createDemandGate.js';
import { parseChatRequest } from '../core/parseChatRequest.js';
import type { RequestLimitsConfig } from '../core/requestLimits.js';
import { resolveRequestLimits } from '../core/resolveRequestLimits.js';
import { toRequestError } from '../node/toRequestError.js';

/** The three endpoints. */
export type ChatEndpoint = '/chat/json' | '/chat/stream' | '/chat/sse';

/** The one structured log entry per request. It never contains a key; error messages are redacted. */
export interface ChatRequestLog {
  /** Which endpoint served the request. */
  endpoint: ChatEndpoint;
  /** `POST`, or `GET` for `GET /chat/sse`. */
  method: string;
  /** The status sent (200 once a stream was committed, even if it then ended with an in-band error); 0: none. */
  status: number;
  /** How the response ended (see `WriteOutcome`). */
  result: WriteOutcome['result'];
  /** The model asked for (the request's, else the default). */
  model?: string;
  /** Milliseconds from the request to the first value (chunk, or the whole answer for `/chat/json`). */
  firstChunkMs?: number;
  /** Milliseconds from the request to the end of the response. */
  durationMs: number;
  /** Values written (chunks, or 1 for `/chat/json`). */
  chunks: number;
  /** Body bytes written. */
  bytes: number;
  /** Token usage, when the upstream reported it. */
  usage?: Usage;
  /** The error's public code and redacted message, when the response failed. */
  error?: {
    /** The public error code (as in the error body). */
    code: string;
    /** The redacted message. */
    message: string;
  };
}

/** Options of {@link chatRouter}. */
export interface ChatRouterConfig {
  /** The client to serve from, or its config (a client is then created, and closed by nobody: prefer a client). */
  client: ChatClient | ChatClientConfig;
  /** The model used when a request names none (otherwise the client's default applies). */
  model?: string;
  /** Accepted downstream Bearer keys; empty or absent: the endpoints are open. */
  apiKeys?: readonly string[];
  /** The JSON body limit (bytes, or a string such as `'1mb'`); larger bodies get 413. Default `'1mb'`. */
  bodyLimit?: number | string;
  /**
   * The most requests one client may have running at once (from the moment its key is accepted until its response
   * ends); past it, 429 `concurrency_limit` with `Retry-After`. A client is its Bearer key when `apiKeys` are
   * configured, else its remote address (see `clientKey`). Default 32; `0`: no limit.
   */
  maxConcurrentPerClient?: number;
  /** Who a request comes from, for `maxConcurrentPerClient` (default `clientKeyOf(req, apiKeys configured)`). */
  clientKey?: (req: Request) => string;
  /** Bounds checked before a body is validated (messages, nesting, values, characters, issues reported); see `DEFAULT_REQUEST_LIMITS`. */
  requestLimits?: RequestLimitsConfig;
  /** The longest `q` query parameter of `GET /chat/sse`, in characters; longer gets 413. Default 8192. */
  queryLimit?: number;
  /** SSE heartbeat interval in ms (`0` disables). Default 15000. */
  heartbeatMs?: number;
  /** The request `GET /chat/sse` serves when it has no `q` (so `new EventSource('/chat/sse')` works); absent: 400. */
  demoRequest?: ChatRequest;
  /** Receives one entry per request. */
  log?: (entry: ChatRequestLog) => void;
  /** More literal secrets to redact from error messages (the `apiKeys` are always redacted). */
  secrets?: readonly string[];
  /** Aborting it ends every response in flight with an error (graceful shutdown). */
  signal?: AbortSignal;
}

const isClient = (value: ChatClient | ChatClientConfig): value is ChatClient => typeof (value as Partial<ChatClient>).sse === 'function';

const usageOf = (value: unknown): Usage | undefined => {
  const record = value as { usage?: Usage; data?: { usage?: Usage } } | null;
  return record?.usage ?? record?.data?.usage;
};

const JSON_TYPE = 'application/json';

/**
 * An Express 5 router serving the spec's three endpoints over a chat client: `POST /chat/json`, `POST /chat/stream`,
 * `POST /chat/sse`, and `GET /chat/sse?q=<url-encoded JSON request>` for browsers' `EventSource`.
 *
 * 1. Keys (when configured): `Authorization: Bearer <key>`, compared in constant time; else 401.
 * 2. `Content-Type: application/json` (else 415); body up to `bodyLimit` (else 413); valid JSON matching the
 *    `ChatRequest` schema (else 400 with the issues). Every refusal is written in the endpoint's error format.
 * 3. Each request gets its own demand gate, passed to both the client and the writer (backpressure), and is served by
 *    `sendJson` / `sendNdjson` / `sendSse` (lazy commit, in-band errors, disconnect aborts upstream, heartbeats).
 * 4. `log` receives one entry per request: endpoint, status, time to first chunk, duration, usage.
 * 5. One client (its key, else its address) may have `maxConcurrentPerClient` requests running (default 32); more get
 *    429 `concurrency_limit` with `Retry-After` at once, in the endpoint's error format.
 *
 * ## Example
 * ```ts
 * const app = express();
 * app.use(chatRouter({ client: createChatClient({ provider: 'deepseek' }), log: (e) => console.log(JSON.stringify(e)) }));
 * app.listen(3000);
 * ```
 *
 * @param config - The client and the router's options.
 * @returns The router; mount it with `app.use(router)` or under a prefix.
 */
export function chatRouter(config: ChatRouterConfig): Router {
  const client = isClient(config.client) ? config.client : createChatClient(config.client);
  const keys = (config.apiKeys ?? []).filter((key) => key !== '');
  const bodyLimit = config.bodyLimit ?? '1mb';
  const queryLimit = config.queryLimit ?? 8192;
  const limits = resolveRequestLimits(config.requestLimits); // a wrong limit is a ConfigError now
  const maxPerClient = config.maxConcurrentPerClient ?? 32;
  const limiter = createConcurrencyLimiter({ maxPerClient });
  const clientKey = config.clientKey ?? ((req: Request) => clientKeyOf(req, keys.length > 0));
  const secrets = [...keys, ...(config.secrets ?? [])];
  const router = express.Router();

  const call = (endpoint: ChatEndpoint, request: ChatRequest, demand: DemandGate): Observable<unknown> =>
    endpoint === '/chat/json'
      ? client.json(request, { demand })
      : endpoint === '/chat/stream'
        ? client.stream(request, { demand })
        : client.sse(request, { demand });

  /** Serves one request: `read` yields the valid request or throws the RequestError to send. */
  const serve = (endpoint: ChatEndpoint, req: Request, res: Response, read: () => ChatRequest): void => {
    const started = performance.now();
    const demand = createDemandGate();
    let model: string | undefined;
    let usage: Usage | undefined;
    const source = defer(() => {
      const request = read();
      model = request.model ?? client.model;
      return call(endpoint, request, demand);
    });
    const writeConfig = {
      demand,
      secrets,
      onValue: (value: unknown) => (usage = usageOf(value) ?? usage),
      ...(config.signal === undefined ? {} : { signal: config.signal }),
    };
    const sent =
      endpoint === '/chat/json'
        ? sendJson(res, source, writeConfig)
        : endpoint === '/chat/stream'
          ? sendNdjson(res, source, writeConfig)
          : sendSse(res, source, { ...writeConfig, ...(config.heartbeatMs === undefined ? {} : { heartbeatMs: config.heartbeatMs }) });
    void sent.then((outcome) => {
      if (config.log === undefined) return;
      const entry: ChatRequestLog = {
        endpoint,
        method: req.method,
        status: outcome.status,
        result: outcome.result,
        durationMs: Math.round(performance.now() - started),
        chunks: outcome.values,
        bytes: outcome.bytes,
      };
      if (model !== undefined) entry.model = model;
      if (outcome.firstValueMs !== undefined) entry.firstChunkMs = Math.round(outcome.firstValueMs);
      if (usage !== undefined) entry.usage = usage;
      if (outcome.error !== undefined) {
        const { body } = toErrorResponse(outcome.error, { secrets });
        entry.error = { code: body.code, message: body.message };
      }
      config.log(entry);
    });
  };
  const refuse = (endpoint: ChatEndpoint, req: Request, res: Response, error: RequestError | CapacityError): void =>
    serve(endpoint, req, res, () => {
      throw error;
    });

  for (const endpoint of ['/chat/json', '/chat/stream', '/chat/sse'] as const) {
    const authorize = (req: Request, res: Response, next: NextFunction): void => {
      if (keys.length === 0 || matchesBearerKey(req.get('authorization'), keys)) return next();
      refuse(endpoint, req, res, new RequestError('unauthorized', 'missing or invalid API key (send it in the Authorization header, scheme Bearer)'));
    };
    const limit = (req: Request, res: Response, next: NextFunction): void => {
      const release = limiter.tryAcquire(clientKey(req));
      if (release === undefined) {
        const message = `this client already has ${maxPerClient} requests running; retry when one has ended`;
        return refuse(endpoint, req, res, new CapacityError('concurrency_limit', message));
      }
      res.once('close', release);
      next();
    };
    const requireJson = (req: Request, res: Response, next: NextFunction): void => {
      if (req.is(JSON_TYPE) === JSON_TYPE) return next();
      refuse(endpoint, req, res, new RequestError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)'));
    };
    const bodyErrors = (error: unknown, req: Request, res: Response, next: NextFunction): void => {
      const refusal = toRequestError(error, bodyLimit);
      if (refusal === undefined) return next(error);
      refuse(endpoint, req, res, refusal);
    };
    router.post(endpoint, authorize, limit, requireJson, express.json({ limit: bodyLimit, type: JSON_TYPE }), bodyErrors, (req: Request, res: Response) =>
      serve(endpoint, req, res, () => parseChatRequest(req.body, config.model, limits)),
    );
  }

  router.get('/chat/sse', (req, res) => {
    if (keys.length > 0 && !matchesBearerKey(req.get('authorization'), keys)) {
      return refuse('/chat/sse', req, res, new RequestError('unauthorized', 'missing or invalid API key (send it in the Authorization header, scheme Bearer)'));
    }
    const release = limiter.tryAcquire(clientKey(req));
    if (release === undefined) {
      const message = `this client already has ${maxPerClient} requests running; retry when one has ended`;
      return refuse('/chat/sse', req, res, new CapacityError('concurrency_limit', message));
    }
    res.once('close', release);
    serve('/chat/sse', req, res, () => readQuery(req.query['q'], queryLimit, config.demoRequest, config.model, limits));
  });
  return router;
}

/** The request of `GET /chat/sse`: the JSON in `q`, or the demo request when there is no `q`. */
function readQuery(
  q: unknown,
  limit: number,
  demo: ChatRequest | undefined,
  model: string | undefined,
  limits: RequestLimitsConfig,
): ChatRequest {
  if (q === undefined) {
    if (demo !== undefined) return parseChatRequest(demo, model, limits);
    throw new RequestError('invalid_request', 'GET /chat/sse needs the request as URL-encoded JSON in the `q` query parameter');
  }
  if (typeof q !== 'string') throw new RequestError('invalid_request', 'give the `q` query parameter once, as URL-encoded JSON');
  if (q.length > limit) throw new RequestError('payload_too_large', `the \`q\` query parameter is longer than ${limit} characters`);
  let body: unknown;
  try {
    body = JSON.parse(q);
  } catch (error) {
    throw new RequestError('invalid_request', 'the `q` query parameter is not valid JSON', { cause: error });
  }
  return parseChatRequest(body, model, limits);
}
