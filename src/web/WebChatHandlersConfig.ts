import type { ChatEndpointsConfig } from '../node/createChatEndpoints.js';

/**
 * Options of `createChatHandlers`: those of the node serving core (`chatRouter`, `ChatfluxModule.forRoot`), except
 * `shutdown`, with `clientKey` reading a web `Request`; `log` receives the node core's entry (one per request of the
 * three endpoints).
 */
export interface WebChatHandlersConfig extends Omit<ChatEndpointsConfig, 'clientKey' | 'shutdown'> {
  /**
   * Who a request comes from, for `maxConcurrentPerClient`. Default: its Bearer key when `apiKeys` are configured;
   * otherwise a web `Request` carries no client address, so every request counts as one client (`'anonymous'`) —
   * pass your platform's address (Hono's `getConnInfo`, Next.js's `x-forwarded-for` behind your proxy) to key by it.
   */
  clientKey?: (request: Request) => string;
}
