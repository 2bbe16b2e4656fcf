import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';
import type { ChatClient, ChatClientConfig } from '../client/createChatClient.js';
import type { WriteResponseConfig } from '../node/writeResponse.js';
import type { ChatEndpointsConfig } from '../node/createChatEndpoints.js';

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
 * What `ChatfluxModule.forRoot()` takes (and what a `forRootAsync()` factory returns, `routes` and `global` aside):
 * the serving options of the node endpoints (`ChatEndpointsConfig`, hence `ServingOptionsSchema`: the names, defaults
 * and ranges of the Express router's `ChatRouterConfig`), passed to the built-in controller as they are, with a client
 * or its config and the module's own `routes`, `global` and `shutdownGraceMs`. The config's `signal` is merged into the
 * module's graceful shutdown (`ChatfluxShutdown`).
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
export interface ChatfluxModuleConfig extends Omit<ChatEndpointsConfig, 'client' | 'shutdown'> {
  /**
   * The client to inject, or its config (given to `createChatClient`). A client the module created is closed when
   * the module is destroyed; a client passed in is left to its owner.
   */
  client: ChatClient | ChatClientConfig;
  /** Register the controller serving the three endpoints (default: none). Static: known before DI runs. */
  routes?: ChatfluxRoutesConfig;
  /**
   * On `app.close()` (SIGTERM with `enableShutdownHooks()`), how long responses in flight may still run before they
   * end with a `ShutdownError` (503 + `Retry-After`, or the in-band `shutting_down` frame). Default 10000 ms.
   */
  shutdownGraceMs?: number;
  /** Make `CHATFLUX_CLIENT` injectable in every module without importing `ChatfluxModule` again (default false). */
  global?: boolean;
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
  /** Writes the refusal (`error` is Express's JSON parser's) in the route's error format, after the checks the route makes first. */
  answerBodyError(request: IncomingMessage, response: ServerResponse, error: unknown): void;
}
