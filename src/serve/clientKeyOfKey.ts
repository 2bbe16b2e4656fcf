import { createHash } from 'node:crypto';

/**
 * The client key of an API key, for a per-client limit and a route's breakers: `key:<hash>` (the key itself is
 * hashed, never kept). A request with the key in its `Authorization` header and a `GET /chat/sse` token signed for it
 * count as this same client.
 *
 * @param key - The API key.
 * @returns `key:<hash>`.
 */
export function clientKeyOfKey(key: string): string {
  return `key:${createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, 22)}`;
}
