import type { ChatClient } from '../client/createChatClient.js';
import type { ServingSettingsConfig } from './ServingSettingsConfig.js';

/**
 * Options of the serving core (`createServingCore`), whatever the transport: a client, the serving options
 * (`ServingSettingsConfig`: `ServingOptionsSchema`'s fields, declared there once) and the graceful shutdown. Those of
 * `createChatEndpoints` (`chatRouter`, `ChatfluxModule.forRoot`) and of the web handlers (`createChatHandlers`) are made
 * of it. `R` is the transport's own request, which a custom `clientKey` reads (node's `IncomingMessage`, a web `Request`).
 */
export interface ServingCoreConfig<R = unknown> extends ServingSettingsConfig {
  /** The client to serve from. */
  client: ChatClient;
  /** `ServingOptionsSchema`'s `clientKey`, reading the transport's request `R`. */
  clientKey?: (req: R) => string;
  /**
   * A graceful shutdown (`createGracefulShutdown`, or `ChatfluxModule`'s own): while it drains, a new request gets
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
