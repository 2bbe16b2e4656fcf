import { createHash } from 'node:crypto';

/**
 * The client key of a request's Bearer key, for a per-client limit: `key:<hash>` (the key itself is hashed, never
 * kept), or `undefined` without one. Shared by node's `clientKeyOf` and the web handlers' default key.
 *
 * @param authorization - The request's `Authorization` header, if any.
 * @returns `key:<hash>`, or `undefined` when the header carries no Bearer key.
 */
export function bearerClientKey(authorization: string | undefined): string | undefined {
  const token = /^Bearer[ \t]+(\S+)/i.exec(authorization ?? '')?.[1];
  return token === undefined ? undefined : `key:${createHash('sha256').update(token, 'utf8').digest('base64url').slice(0, 22)}`;
}
