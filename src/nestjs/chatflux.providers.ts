import { checkRequestPolicy } from '../core/checkRequestPolicy.js';
import type { Provider } from '@nestjs/common';
import { createChatClient, type ChatClient } from '../client/createChatClient.js';
import { CHATFLUX_CLIENT, CHATFLUX_MODULE_CONFIG, DEFAULT_SHUTDOWN_GRACE_MS } from './chatflux.constants.js';
import type { ChatfluxModuleConfig } from './chatflux.interfaces.js';
import { ChatfluxShutdown } from './chatflux.shutdown.js';

const isClient = (value: ChatfluxModuleConfig['client']): value is ChatClient => typeof (value as Partial<ChatClient>).sse === 'function';

/** Clients the module created (and so closes, in `onApplicationShutdown`), as opposed to clients a user passed in. */
export const OWNED_CLIENTS = new WeakSet<ChatClient>();

/**
 * The providers of `ChatfluxModule`, built from the resolved {@link CHATFLUX_MODULE_CONFIG}: the client
 * ({@link CHATFLUX_CLIENT}: the config's own, or one created from its config) and the module's {@link ChatfluxShutdown}.
 */
export const CHATFLUX_PROVIDERS: Provider[] = [
  {
    provide: CHATFLUX_CLIENT,
    useFactory: (config: ChatfluxModuleConfig): ChatClient => {
      if (config.requestPolicy !== undefined) checkRequestPolicy(config.requestPolicy); // a wrong policy fails at start
      if (isClient(config.client)) return config.client;
      const created = createChatClient(config.client);
      OWNED_CLIENTS.add(created);
      return created;
    },
    inject: [CHATFLUX_MODULE_CONFIG],
  },
  {
    provide: ChatfluxShutdown,
    useFactory: (config: ChatfluxModuleConfig) => new ChatfluxShutdown(config.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS, config.signal),
    inject: [CHATFLUX_MODULE_CONFIG],
  },
];

/** What `ChatfluxModule` exports to the modules that import it. */
export const CHATFLUX_EXPORTS = [CHATFLUX_CLIENT, CHATFLUX_MODULE_CONFIG, ChatfluxShutdown];
