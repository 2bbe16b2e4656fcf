import type { RawResponse } from './rawRequest';

/**
 * What two adapters serving the same request must agree on: the status, the headers a client acts on
 * (`Content-Type`, `Cache-Control`, `WWW-Authenticate`, `Retry-After`) and the body.
 */
export const visibleResponse = (res: RawResponse): unknown => ({
  status: res.status,
  type: res.headers['content-type'],
  cache: res.headers['cache-control'],
  auth: res.headers['www-authenticate'],
  retry: res.headers['retry-after'],
  body: res.body,
});
