import { Inject, Module, type DynamicModule, type OnModuleDestroy, type Provider, type Type } from '@nestjs/common';
import { createChatClient, type ChatClient } from '../client/createChatClient.js';
import { CHATFLUX_CLIENT } from './CHATFLUX_CLIENT.js';
import { CHATFLUX_MODULE_CONFIG } from './CHATFLUX_MODULE_CONFIG.js';
import type { ChatfluxModuleAsyncConfig } from './ChatfluxModuleAsyncConfig.js';
import type { ChatfluxModuleConfig, ChatfluxRoutesConfig } from './ChatfluxModuleConfig.js';
import { createChatController } from './createChatController.js';

const isClient = (value: ChatfluxModuleConfig['client']): value is ChatClient => typeof (value as Partial<ChatClient>).sse === 'function';

/** Clients this module created (and so closes), as opposed to clients a user passed in. */
const created = new WeakSet<ChatClient>();

const clientProvider: Provider = {
  provide: CHATFLUX_CLIENT,
  useFactory: (config: ChatfluxModuleConfig): ChatClient => {
    if (isClient(config.client)) return config.client;
    const client = createChatClient(config.client);
    created.add(client);
    return client;
  },
  inject: [CHATFLUX_MODULE_CONFIG],
};

const controllersFor = (routes: ChatfluxRoutesConfig | undefined): Array<Type<unknown>> =>
  routes === undefined || routes === false ? [] : [createChatController(routes === true ? '' : (routes.prefix ?? ''))];

/**
 * The chatflux module: an injectable chat client (token {@link CHATFLUX_CLIENT}), closed when the application
 * shuts down, and optionally a controller serving `POST /chat/json`, `/chat/stream` and `/chat/sse` exactly as the
 * Express router does (same writers, hence the same bytes, statuses, headers, heartbeats, backpressure, disconnect).
 *
 * 1. `forRoot(config)` takes the config as a value; `forRootAsync({ useFactory, inject, imports })` builds it
 *    through DI.
 * 2. `routes: true` or `routes: { prefix }` registers the controller; its path prefix is fixed when the module is
 *    declared.
 * 3. `app.close()` calls `close()` on a client the module created, which releases its connection pool.
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
export class ChatfluxModule implements OnModuleDestroy {
  constructor(@Inject(CHATFLUX_CLIENT) private readonly client: ChatClient) {}

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
      providers: [{ provide: CHATFLUX_MODULE_CONFIG, useValue: config }, clientProvider],
      controllers: controllersFor(config.routes),
      exports: [CHATFLUX_CLIENT, CHATFLUX_MODULE_CONFIG],
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
      providers: [{ provide: CHATFLUX_MODULE_CONFIG, useFactory: config.useFactory, inject: config.inject ?? [] }, clientProvider],
      controllers: controllersFor(config.routes),
      exports: [CHATFLUX_CLIENT, CHATFLUX_MODULE_CONFIG],
    };
  }

  /** Closes the client, if the module created it, when the application shuts down. */
  async onModuleDestroy(): Promise<void> {
    if (created.has(this.client)) await this.client.close();
  }
}
