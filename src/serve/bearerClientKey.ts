import { bearerKey } from './bearerKey.js';
import { clientKeyOfKey } from './clientKeyOfKey.js';

/**
 * The client key of a request's Bearer key, for a per-client limit: `key:<hash>` (`clientKeyOfKey`; the key itself is
 * hashed, never kept), or `undefined` without one. The header is read as the key check reads it (`bearerKey`).
 * Shared by node's `clientKeyOf` and the web handlers' default key.
 *
 * @param authorization - The request's `Authorization` header, if any.
 * @returns `key:<hash>`, or `undefined` when the header is not one Bearer key.
 */
export function bearerClientKey(authorization: string | undefined): string | undefined {
  const key = bearerKey(authorization);
  return key === undefined ? undefined : clientKeyOfKey(key);
}
