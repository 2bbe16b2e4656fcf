import express, { type Request, type Response, type Router } from 'express';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../client/createChatClient.js';
import type { RequestPolicyConfig } from '../core/RequestPolicyConfig.js';
import type { ChatRequest } from '../core/schemas/index.js';
import { CHAT_WIRES, type ChatWireFormat } from '../node/CHAT_WIRES.js';
import type { ChatRequestLog } from '../node/ChatRequestLog.js';
import { createChatEndpoints } from '../node/createChatEndpoints.js';

export type { ChatEndpoint, ChatRequestLog } from '../node/ChatRequestLog.js';

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
  /** What clients may ask for: allowed models, caps on `max_tokens` / `max_completion_tokens` and `n`, fields to strip (default: everything, forwarded intact). */
  requestPolicy?: RequestPolicyConfig;
}

const isClient = (value: ChatClient | ChatClientConfig): value is ChatClient => typeof (value as Partial<ChatClient>).sse === 'function';

const WIRES: readonly ChatWireFormat[] = ['json', 'ndjson', 'sse'];

/**
 * An Express 5 router serving the spec's three endpoints over a chat client: `POST /chat/json`, `POST /chat/stream`,
 * `POST /chat/sse`, and `GET /chat/sse?q=<url-encoded JSON request>` for browsers' `EventSource`. A thin adapter:
 * each route hands Express's `req`/`res` (node's, underneath) to the serving core, `createChatEndpoints`.
 *
 * 1. Keys (when configured): `Authorization: Bearer <key>`, compared in constant time; else 401.
 * 2. `Content-Type: application/json` (else 415); body up to `bodyLimit` (else 413); valid JSON matching the
 *    `ChatRequest` schema (else 400 with the issues) and the `requestPolicy`. Every refusal is written in the endpoint's error format. A body
 *    an app-level `express.json()` parsed already is taken from `req.body` (and still held to `bodyLimit`).
 * 3. Each request gets its own demand gate, passed to both the client and the writer (backpressure), and is served by
 *    `sendJson` / `sendNdjson` / `sendSse` (lazy commit, in-band errors, disconnect aborts upstream, heartbeats).
 * 4. `log` receives one entry per request: endpoint, status, time to first chunk, duration, usage.
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
  const endpoints = createChatEndpoints({ ...config, client: isClient(config.client) ? config.client : createChatClient(config.client) });
  const router = express.Router();
  for (const wire of WIRES) {
    router.post(CHAT_WIRES[wire].endpoint, (req: Request, res: Response) => void endpoints.post(wire, req, res));
  }
  router.get(CHAT_WIRES.sse.endpoint, (req: Request, res: Response) => void endpoints.query(req, res, req.query['q']));
  return router;
}
