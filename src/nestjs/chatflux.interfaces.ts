import type { RequestLimitsConfig } from '../core/requestLimits.js';
import type { RequestPolicyConfig } from '../core/RequestPolicyConfig.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';
import type { ChatClient, ChatClientConfig } from '../client/createChatClient.js';
import type { WriteResponseConfig } from '../node/writeResponse.js';
import type { ChatRequestLog } from '../serve/ChatRequestLog.js';
import type { ChatRequest } from '../core/schemas/index.js';
import type { ResumableConfig } from '../serve/ResumableConfig.js';

/**
 * Where the built-in controller serves `POST {prefix}/chat/json`, `{prefix}/chat/stream` and `{prefix}/chat/sse`.
 * `true` serves them at the root (no prefix); `false` (or leaving `routes` out) registers no controller.
 */
export type ChatfluxRoutesConfig =
  | boolean
  | {
      /**
       * A path prefix such as `'api'` → `POST /api/chat/json`, and OpenAI's `POST /api/v1/chat/completions`. A prefix
       * that ends in `v1` holds OpenAI's endpoints itself: `'v1'` → `POST /v1/chat/json` and `POST /v1/chat/completions`
       * (not `/v1/v1/…`), so that an OpenAI client's base URL is `…/v1`.
       */
      prefix?: string;
    };

/**
 * What `ChatfluxModule.forRoot()` takes (and what a `forRootAsync()` factory returns, `routes` and `global` aside).
 * The endpoint options have the names and defaults of the Express router's `ChatRouterConfig`.
 *
 * ## Example
 * ```ts
 * ChatfluxModule.forRoot({
 *   client: { provider: 'deepseek', apiKey: process.env.DEEPSEEK_API_KEY },
 *   routes: { prefix: 'api' },
 *   apiKeys: ['downstream-key-1'],
 * });
 * ```
 */
export interface ChatfluxModuleConfig {
  /**
   * The client to inject, or its config (given to `createChatClient`). A client the module created is closed when
   * the module is destroyed; a client passed in is left to its owner.
   */
  client: ChatClient | ChatClientConfig;
  /** Register the controller serving the three endpoints (default: none). Static: known before DI runs. */
  routes?: ChatfluxRoutesConfig;
  /** The model used when a request names none (otherwise the client's default applies). */
  model?: string;
  /** Accepted downstream Bearer keys (constant-time comparison); empty or absent: the endpoints are open. */
  apiKeys?: readonly string[];
  /** The JSON body limit (bytes, or a string such as `'1mb'`); larger bodies get 413. Default `'1mb'`. */
  bodyLimit?: number | string;
  /** The built-in controller: the longest wait for a whole request body, in ms; slower: 408 `request_timeout` (default 30000; `0`: none). */
  bodyTimeoutMs?: number;
  /**
   * The built-in controller: the write stall deadline, in ms — a response whose client has not read for this long is
   * ended (upstream aborted, socket destroyed, logged as `client_stalled`). Default 30000; `0`: none.
   */
  writeStallTimeoutMs?: number;
  /**
   * The built-in controller, with `apiKeys`: the secret (16+ characters) signing the short-lived tokens of
   * `POST /chat/token`; absent, a random secret of this process.
   */
  tokenSecret?: string;
  /** The built-in controller: how long a token of `POST /chat/token` lets `GET /chat/sse?token=…` in, in ms (default 60000). */
  tokenTtlMs?: number;
  /** The built-in controller: the longest `q` query parameter of `GET /chat/sse`, in characters; longer gets 413 (default 8192). */
  queryLimit?: number;
  /**
   * The built-in controller: resumable answers (`Chatflux-Stream-Id`, `Last-Event-ID`, `GET {prefix}/chat/streams/{id}`,
   * `POST {prefix}/chat/streams/{id}/cancel`): `true` for an in-memory log, or its options (see the Express router's
   * `resumable`). Default off.
   */
  resumable?: boolean | ResumableConfig;
  /** The built-in controller: the request `GET /chat/sse` serves when it has no `q`; absent: 400. */
  demoRequest?: ChatRequest;
  /** The built-in controller: receives one entry per request (the Express router's `ChatRequestLog`). */
  log?: (entry: ChatRequestLog) => void;
  /** The built-in controller: the longest string field of a log entry, in characters (default 1024). */
  maxLogFieldChars?: number;
  /** SSE heartbeat interval in ms (`0` disables). Default 15000. */
  heartbeatMs?: number;
  /** More literal secrets to redact from error messages (the `apiKeys` are always redacted). */
  secrets?: readonly string[];
  /** Aborting it ends every response in flight with an error (graceful shutdown). */
  signal?: AbortSignal;
  /**
   * On `app.close()` (SIGTERM with `enableShutdownHooks()`), how long responses in flight may still run before they
   * end with a `ShutdownError` (503 + `Retry-After`, or the in-band `shutting_down` frame). Default 10000 ms.
   */
  shutdownGraceMs?: number;
  /** Make `CHATFLUX_CLIENT` injectable in every module without importing `ChatfluxModule` again (default false). */
  global?: boolean;
  /** The built-in controller: what clients may ask for (allowed models, caps, fields to strip); default everything. */
  requestPolicy?: RequestPolicyConfig;
  /**
   * The built-in controller: whether `/chat/json`, `/chat/stream` and `/chat/sse` forward a request's `n` > 1 (default
   * false: 400, the contract has one message; see the router's `allowSeveralChoices`).
   */
  allowSeveralChoices?: boolean;
  /** The built-in controller: bounds checked before a body is validated; see `DEFAULT_REQUEST_LIMITS`. */
  requestLimits?: RequestLimitsConfig;
  /** The built-in controller: requests one client (its key, else its address) may have running; more get 429 (default 32; `0`: no limit). */
  maxConcurrentPerClient?: number;
  /** The built-in controller: who a request comes from, for `maxConcurrentPerClient` (default: its hashed Bearer key, else its address). */
  clientKey?: (req: IncomingMessage) => string;
}

/**
 * What `ChatfluxModule.forRootAsync()` takes: a factory for the config, resolved by Nest's DI (e.g. from
 * `ConfigService`). `routes` and `global` stay static, because Nest must know its controllers and scopes before any
 * provider is built.
 *
 * ## Example
 * ```ts
 * ChatfluxModule.forRootAsync({
 *   imports: [ConfigModule],
 *   inject: [ConfigService],
 *   useFactory: (env: ConfigService) => ({ client: { provider: 'moonshot', apiKey: env.get('MOONSHOT_API_KEY') } }),
 *   routes: true,
 * });
 * ```
 */
export interface ChatfluxModuleAsyncConfig {
  /** Modules exporting the providers `inject` names. */
  imports?: ModuleMetadata['imports'];
  /** Tokens whose values are passed to `useFactory`, in order. */
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  /** Builds the config; may be async. */
  useFactory: (...args: never[]) => Omit<ChatfluxModuleConfig, 'routes' | 'global'> | Promise<Omit<ChatfluxModuleConfig, 'routes' | 'global'>>;
  /** Register the controller serving the three endpoints (default: none). */
  routes?: ChatfluxRoutesConfig;
  /** Make `CHATFLUX_CLIENT` injectable everywhere (default false). */
  global?: boolean;
}

/**
 * Options of `@ChatJson()`, `@ChatNdjson()`, `@ChatSse()` — those of the node writers, except the demand gate,
 * which is the request's (see `@Demand()`): `heartbeatMs` (SSE only; default 15000, `0` disables), `secrets` to
 * redact from error messages, a `signal` that ends responses in flight (graceful shutdown), `onValue` — and
 * `bodyLimit`, for an app without a body parser (`bodyParser: false`).
 */
export type ChatWireConfig = Omit<WriteResponseConfig, 'demand' | 'heartbeatAfter'> & {
  /**
   * When nothing parsed the JSON body yet (`NestFactory.create(App, { bodyParser: false })`), the handler's
   * interceptor parses it — after the guards, before the pipes — with the Express router's parser and this limit
   * (bytes, or a string such as `'1mb'`; default `'1mb'`); a refusal is a 400/413/415 in the handler's format.
   */
  bodyLimit?: number | string;
};

/** What {@link CHAT_ROUTE} holds: how the route answers a request whose body the platform's parser refused. */
export interface ChatRoute {
  /** Writes the refusal (`error` is body-parser's) in the route's error format, after the checks the route makes first. */
  answerBodyError(request: IncomingMessage, response: ServerResponse, error: unknown): void;
}
