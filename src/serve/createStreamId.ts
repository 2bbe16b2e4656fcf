import { randomBytes } from 'node:crypto';

/**
 * A new resumable stream's id: 128 random bits, base64url (22 characters of `[A-Za-z0-9_-]`), what the
 * `Chatflux-Stream-Id` header carries and `GET /chat/streams/{id}` takes.
 *
 * @returns The id.
 */
export function createStreamId(): string {
  return randomBytes(16).toString('base64url');
}
