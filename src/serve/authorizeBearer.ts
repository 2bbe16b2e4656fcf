import { RequestError } from '../core/errors.js';
import { matchesBearerKey } from './matchesBearerKey.js';

/**
 * The key check of the chat endpoints, on the `Authorization` header alone, so the node serving core
 * (`createChatEndpoints`) and the web handlers (`chatflux/web`) refuse with the same error: a 401 `unauthorized`.
 *
 * @param authorization - The request's `Authorization` header, if any.
 * @param keys - The accepted Bearer keys (non-empty ones); none: every request passes.
 * @throws RequestError `unauthorized` when keys are configured and the header carries none of them.
 */
export function authorizeBearer(authorization: string | undefined, keys: readonly string[]): void {
  if (keys.length === 0 || matchesBearerKey(authorization, keys)) return;
  throw new RequestError('unauthorized', 'missing or invalid API key (send it in the Authorization header, scheme Bearer)');
}
