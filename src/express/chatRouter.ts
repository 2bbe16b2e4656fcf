import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../client/createChatClient.js';
import { CHAT_WIRES, type ChatWireFormat } from '../node/CHAT_WIRES.js';
import { createChatEndpoints, type ChatEndpointsConfig } from '../node/createChatEndpoints.js';
import { toRequestError } from '../serve/toRequestError.js';

export type { ChatEndpoint, ChatRequestLog } from '../serve/ChatRequestLog.js';

/**
 * Options of {@link chatRouter}: those of the serving core (`createChatEndpoints`: keys, body and query limits,
 * request policy and limits, per-client concurrency, heartbeat, log, secrets, signal), with a client or its config.
 */
export interface ChatRouterConfig extends Omit<ChatEndpointsConfig, 'client' | 'shutdown'> {
  /** The client to serve from, or its config (a client is then created, and closed by nobody: prefer a client). */
  client: ChatClient | ChatClientConfig;
}

/** The router {@link chatRouter} returns: an Express `Router`, and the error middleware for an app-level body parser. */
export interface ChatRouter extends Router {
  /**
   * Error middleware answering a body that a parser of the app refused before the router ran (a global
   * `app.use(express.json())`: malformed JSON, a body over its limit, an unsupported charset or encoding): on a chat
   * endpoint, the router answers it — key first (401), then the media type (415), then the parser's refusal as the
   * router's 400/413/415 — in the endpoint's error format; any other error or path goes on to the app's handlers.
   * Mount it right after the router, at the same path: `app.use(chat, chat.errorHandler)`.
   */
  readonly errorHandler: ErrorRequestHandler;
}

const isClient = (value: ChatClient | ChatClientConfig): value is ChatClient => typeof (value as Partial<ChatClient>).sse === 'function';

const WIRES: readonly ChatWireFormat[] = ['json', 'ndjson', 'sse'];

/** Anthropic's token counting endpoint (an estimate: `countMessageTokens`). */
const COUNT_TOKENS = '/v1/messages/count_tokens';

/**
 * An Express 5 router serving the spec's three endpoints over a chat client: `POST /chat/json`, `POST /chat/stream`,
 * `POST /chat/sse`, and `GET /chat/sse?q=<url-encoded JSON request>` for browsers' `EventSource`; and OpenAI's
 * `POST /v1/chat/completions` and `GET /v1/models`, for every OpenAI client (`baseURL: 'http://host:port/v1'`); and
 * Anthropic's `POST /v1/messages` and `/v1/messages/count_tokens`, for every Anthropic client and Claude Code
 * (`ANTHROPIC_BASE_URL=http://host:port`); and the AI SDK's `POST /chat/ui` (`useChat`). A thin adapter:
 * each route hands Express's `req`/`res` (node's, underneath) to the node endpoints, `createChatEndpoints` (on the serving core, `createServingCore`).
 *
 * 1. Keys (when configured): `Authorization: Bearer <key>`, compared in constant time; else 401.
 * 2. `Content-Type: application/json` (else 415); body up to `bodyLimit` (else 413); valid JSON matching the
 *    `ChatRequest` schema and the `requestPolicy` (else 400 with the issues). Every refusal is written in the endpoint's error format. A body
 *    an app-level `express.json()` parsed already is taken from `req.body` (and still held to `bodyLimit`: its
 *    `Content-Length`, and its parsed JSON's length when chunked or compressed).
 * 3. Each request gets its own demand gate, passed to both the client and the writer (backpressure), and is served by
 *    `sendJson` / `sendNdjson` / `sendSse` (lazy commit, in-band errors, disconnect aborts upstream, heartbeats).
 * 4. `log` receives one entry per request: endpoint, status, time to first chunk, duration, usage.
 * 5. One client (its key, else its address) may have `maxConcurrentPerClient` requests running (default 32); more get
 *    429 `concurrency_limit` with `Retry-After` at once, in the endpoint's error format.
 * 6. With `apiKeys`, `POST /chat/token` (behind the key) answers `{ token, expiresAt }`: a short-lived signed token
 *    that `GET /chat/sse?token=…` takes in place of the `Authorization` header, for a browser's `EventSource`.
 * 7. After an app-level `express.json()`, the router reads the body it parsed (held to `bodyLimit` by its
 *    `Content-Length` and by the length of the parsed JSON); that parser's refusals reach Express's error handlers, not the router: mount the router's
 *    `errorHandler` beside it (`app.use(chat, chat.errorHandler)`) to answer them in the endpoint's format.
 *
 * ## Example
 * ```ts
 * const app = express();
 * app.use(chatRouter({ client: createChatClient({ provider: 'deepseek' }), log: (e) => console.log(JSON.stringify(e)) }));
 * app.listen(3000);
 * ```
 *
 * @param config - The client and the router's options.
 * @returns The router; mount it with `app.use(router)` or under a prefix (with `router.errorHandler` after an app-level body parser).
 */
export function chatRouter(config: ChatRouterConfig): ChatRouter {
  const endpoints = createChatEndpoints({ ...config, client: isClient(config.client) ? config.client : createChatClient(config.client) });
  const router = express.Router();
  for (const wire of WIRES) {
    router.post(CHAT_WIRES[wire].endpoint, (req: Request, res: Response) => void endpoints.post(wire, req, res));
  }
  router.get(CHAT_WIRES.sse.endpoint, (req: Request, res: Response) => void endpoints.query(req, res, req.query['q']));
  router.post(CHAT_WIRES.openai.endpoint, (req: Request, res: Response) => void endpoints.completions(req, res));
  router.get('/v1/models', (req: Request, res: Response) => void endpoints.models(req, res));
  router.post(CHAT_WIRES.anthropic.endpoint, (req: Request, res: Response) => void endpoints.messages(req, res));
  router.post(CHAT_WIRES.ui.endpoint, (req: Request, res: Response) => void endpoints.ui(req, res));
  router.get(`${CHAT_WIRES.ui.endpoint}/:chatId/stream`, (req: Request, res: Response) => void endpoints.uiResume(req, res, String(req.params['chatId'])));
  router.post(COUNT_TOKENS, (req: Request, res: Response) => void endpoints.countTokens(req, res));
  router.get('/chat/streams/:id', (req: Request, res: Response) => void endpoints.resume(req, res, String(req.params['id'])));
  router.post('/chat/streams/:id/cancel', (req: Request, res: Response) => void endpoints.cancel(req, res, String(req.params['id'])));
  if (endpoints.servesTokens) {
    router.post('/chat/token', (req: Request, res: Response) => void endpoints.token(req, res));
  }
  const errorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (req.method !== 'POST' || res.headersSent || toRequestError(error, 0) === undefined) return next(error);
    if (pathMatches(req.path, CHAT_WIRES.openai.endpoint)) return void endpoints.completions(req, res, { error });
    if (pathMatches(req.path, CHAT_WIRES.anthropic.endpoint)) return void endpoints.messages(req, res, { error });
    if (pathMatches(req.path, CHAT_WIRES.ui.endpoint)) return void endpoints.ui(req, res, { error });
    if (pathMatches(req.path, COUNT_TOKENS)) return void endpoints.countTokens(req, res, { error });
    const wire = WIRES.find((candidate) => pathMatches(req.path, CHAT_WIRES[candidate].endpoint));
    if (wire === undefined) return next(error);
    void endpoints.post(wire, req, res, { error });
  };
  return Object.assign(router, { errorHandler });
}

/** Whether `path` is `endpoint` as the router matches it (case-insensitive, an optional trailing slash). */
function pathMatches(path: string, endpoint: string): boolean {
  return path.replace(/\/$/, '').toLowerCase() === endpoint;
}
