import type { ChatClient } from '../client/createChatClient.js';
import type { ChatRequest } from '../core/schemas/index.js';
import type { ChatEndpoint, ChatRequestLog } from './ChatRequestLog.js';
import type { ResumableConfig } from './ResumableConfig.js';
import type { ServingSettingsConfig } from './ServingSettingsConfig.js';

/**
 * Options of the serving core (`createServingCore`), whatever the transport: those of `createChatEndpoints`
 * (`chatRouter`, `ChatfluxModule.forRoot`) and of the web handlers (`createChatHandlers`), with a client. `R` is the
 * transport's own request, which a custom `clientKey` reads (node's `IncomingMessage`, a web `Request`).
 */
export interface ServingCoreConfig<R = unknown> extends ServingSettingsConfig {
  /** The client to serve from. */
  client: ChatClient;
  /** The model used when a request names none (otherwise the client's default applies). */
  model?: string;
  /**
   * Who a request comes from, for `maxConcurrentPerClient` (default `clientKeyOf(req, apiKeys configured)`). A
   * `GET /chat/sse?token=…` request counts by default as the client of its token's key; a custom `clientKey` is asked
   * about it as about any request (it has no `Authorization` header). The same client is a route's `caller` (its
   * breakers), when a custom `clientKey` or two or more keys tell clients apart.
   */
  clientKey?: (req: R) => string;
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
  /**
   * Resumable answers: `true` (an in-memory log of this process) or their options (a shared log: every instance
   * resumes every answer). The streamed endpoints then answer with `Chatflux-Stream-Id`, SSE events carry `id:`s, a
   * client that lost its connection resumes with `Last-Event-ID` or `GET /chat/streams/{id}`, and
   * `POST /chat/streams/{id}/cancel` stops an answer; a disconnect no longer aborts the upstream at once (see
   * `ResumableConfig.abandonAfterMs`). Default: off (a disconnect aborts the upstream; `/chat/streams/…` answer 404).
   */
  resumable?: boolean | ResumableConfig;
  /** Aborting it ends every response in flight with an error (graceful shutdown). */
  signal?: AbortSignal;
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
