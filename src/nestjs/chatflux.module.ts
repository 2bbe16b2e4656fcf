import {
  Inject,
  Module,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Type,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ChatClient } from '../client/createChatClient.js';
import { CHATFLUX_CLIENT, CHATFLUX_MODULE_CONFIG } from './chatflux.constants.js';
import { createChatController } from './chatflux.controller.js';
import { answerBodyParserErrors } from './chatflux.filter.js';
import type { ChatfluxModuleAsyncConfig, ChatfluxModuleConfig, ChatfluxRoutesConfig } from './chatflux.interfaces.js';
import { CHATFLUX_EXPORTS, CHATFLUX_PROVIDERS, OWNED_CLIENTS } from './chatflux.providers.js';
import { ChatfluxShutdown } from './chatflux.shutdown.js';

const controllersFor = (routes: ChatfluxRoutesConfig | undefined): Array<Type<unknown>> =>
  routes === undefined || routes === false ? [] : [createChatController(routes === true ? '' : (routes.prefix ?? ''))];

/**
 * The chatflux module: an injectable chat client (token {@link CHATFLUX_CLIENT}), and optionally a controller serving
 * `POST /chat/json`, `/chat/stream` and `/chat/sse` exactly as the Express router does (the same serving core and
 * writers, hence the same bytes, statuses, headers, heartbeats, backpressure, disconnect).
 *
 * 1. `forRoot(config)` takes the config as a value; `forRootAsync({ useFactory, inject, imports })` builds it
 *    through DI.
 * 2. `routes: true` or `routes: { prefix }` registers the controller; its path prefix is fixed when the module is
 *    declared. OpenAI's endpoints are under `{prefix}/v1/`, or under the prefix itself when it ends in `v1`
 *    (`{ prefix: 'v1' }`: `POST /v1/chat/json` and `POST /v1/chat/completions`).
 * 3. With Nest's default body parser (Express platform), a body it refuses on a chatflux route is answered in the
 *    route's error format with the router's status, the key checked first (see `answerBodyParserErrors`). With
 *    `bodyParser: false` the module parses the body itself, under its own `bodyLimit`, after the key check.
 * 4. `app.close()` (SIGTERM with `enableShutdownHooks()`): new chat requests get a 503 `shutting_down`, responses in
 *    flight get `shutdownGraceMs` (default 10 s) to finish, the rest end with a `ShutdownError` (503 + `Retry-After`
 *    before the commit, the in-band `shutting_down` frame after). Once the HTTP server has closed, a client the module
 *    created is closed, its connection pool gracefully.
 *
 * ## Example
 * ```ts
 * @Module({
 *   imports: [ChatfluxModule.forRoot({ client: { provider: 'moonshot' }, routes: { prefix: 'api' } })],
 *   controllers: [MyChatController],
 * })
 * export class AppModule {}
 * ```
 */
@Module({})
export class ChatfluxModule implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  /** @internal Nest creates the module; its dependencies are the module's own providers. */
  constructor(
    @Inject(CHATFLUX_CLIENT) private readonly client: ChatClient,
    @Inject(ChatfluxShutdown) private readonly shutdown: ChatfluxShutdown,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
  ) {}

  /**
   * Provides the client from a config value.
   *
   * @param config The client (or its config), and optionally the routes and the endpoints' options.
   * @returns A dynamic module exporting {@link CHATFLUX_CLIENT} and {@link CHATFLUX_MODULE_CONFIG}.
   */
  static forRoot(config: ChatfluxModuleConfig): DynamicModule {
    return {
      module: ChatfluxModule,
      global: config.global ?? false,
      providers: [{ provide: CHATFLUX_MODULE_CONFIG, useValue: config }, ...CHATFLUX_PROVIDERS],
      controllers: controllersFor(config.routes),
      exports: CHATFLUX_EXPORTS,
    };
  }

  /**
   * Provides the client from a config that a factory builds with injected dependencies.
   *
   * @param config `useFactory`, `inject`, `imports`, and the static `routes` / `global`.
   * @returns A dynamic module exporting {@link CHATFLUX_CLIENT} and {@link CHATFLUX_MODULE_CONFIG}.
   */
  static forRootAsync(config: ChatfluxModuleAsyncConfig): DynamicModule {
    return {
      module: ChatfluxModule,
      global: config.global ?? false,
      imports: config.imports ?? [],
      providers: [{ provide: CHATFLUX_MODULE_CONFIG, useFactory: config.useFactory, inject: config.inject ?? [] }, ...CHATFLUX_PROVIDERS],
      controllers: controllersFor(config.routes),
      exports: CHATFLUX_EXPORTS,
    };
  }

  /** Routes refused bodies on chatflux routes to their error format (Express platform, Nest's default parser). */
  onModuleInit(): void {
    answerBodyParserErrors(this.adapterHost.httpAdapter);
  }

  /** Refuses new chat requests, lets those in flight finish within the grace period, then ends the rest. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.shutdown.drain();
  }

  /** Closes the client, if the module created it, once the HTTP server has closed. */
  async onApplicationShutdown(): Promise<void> {
    if (OWNED_CLIENTS.has(this.client)) await this.client.close(1000); // its pool closes gracefully: 1 s for what is left
  }
}
