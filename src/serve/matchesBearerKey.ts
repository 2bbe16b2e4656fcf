import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerKey } from './bearerKey.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * True when `authorization` is `Bearer <key>` for one of `keys`, compared in constant time.
 *
 * Both sides are hashed (SHA-256) so `timingSafeEqual` always compares equal-length buffers, and every key is
 * compared (no early exit), so the time taken tells nothing about which key, or how much of one, matched.
 *
 * @param authorization - The request's `Authorization` header, if any.
 * @param keys - The accepted keys (non-empty strings).
 * @returns Whether the header carries an accepted key.
 */
export function matchesBearerKey(authorization: string | undefined, keys: readonly string[]): boolean {
  const key = bearerKey(authorization);
  const presented = digest(key ?? '');
  let found = false;
  for (const accepted of keys) found = timingSafeEqual(presented, digest(accepted)) || found;
  return found && key !== undefined;
}
