import express, { type Request, type Response, type Router } from 'express';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../client/createChatClient.js';
import { CHAT_WIRES, type ChatWireFormat } from '../node/CHAT_WIRES.js';
import { createChatEndpoints, type ChatEndpointsConfig } from '../node/createChatEndpoints.js';

export type { ChatEndpoint, ChatRequestLog } from '../node/ChatRequestLog.js';

/**
 * Options of {@link chatRouter}: those of the serving core (`createChatEndpoints`: keys, body and query limits,
 * request policy and limits, per-client concurrency, heartbeat, log, secrets, signal), with a client or its config.
 */
export interface ChatRouterConfig extends Omit<ChatEndpointsConfig, 'client' | 'shutdown'> {
  /** The client to serve from, or its config (a client is then created, and closed by nobody: prefer a client). */
  client: ChatClient | ChatClientConfig;
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
 *    `ChatRequest` schema and the `requestPolicy` (else 400 with the issues). Every refusal is written in the endpoint's error format. A body
 *    an app-level `express.json()` parsed already is taken from `req.body` (and still held to `bodyLimit`).
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
  const endpoints = createChatEndpoints({ ...config, client: isClient(config.client) ? config.client : createChatClient(config.client) });
  const router = express.Router();
  for (const wire of WIRES) {
    router.post(CHAT_WIRES[wire].endpoint, (req: Request, res: Response) => void endpoints.post(wire, req, res));
  }
  router.get(CHAT_WIRES.sse.endpoint, (req: Request, res: Response) => void endpoints.query(req, res, req.query['q']));
  return router;
}
