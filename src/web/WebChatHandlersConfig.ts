import type { ServingCoreConfig } from '../serve/ServingCoreConfig.js';

/**
 * Options of `createChatHandlers`: those of the serving core (`createServingCore`; `chatRouter`'s and
 * `ChatfluxModule.forRoot`'s too), with `clientKey` reading a web `Request`; `log` receives the node endpoints' entry (one per request of the
 * three endpoints).
 */
export interface WebChatHandlersConfig extends ServingCoreConfig<Request> {
  /**
   * Who a request comes from, for `maxConcurrentPerClient`. Default: its Bearer key when `apiKeys` are configured;
   * otherwise a web `Request` carries no client address, so every request counts as one client (`'anonymous'`) —
   * pass your platform's address (Hono's `getConnInfo`, Next.js's `x-forwarded-for` behind your proxy) to key by it.
   * A `GET /chat/sse?token=…` request counts by default as the client of its token's key; a custom `clientKey` is asked
   * about it as about any request (it has no `Authorization` header). The same client is a route's `caller` (its
   * breakers), when a custom `clientKey` or two or more keys tell clients apart.
   */
  clientKey?: (request: Request) => string;
}
