import { isUpstreamHttpError, isUpstreamStreamError } from './errors.js';
import { isNamedUpstreamError } from './isNamedUpstreamError.js';

const CODES = ['content_filter', 'content_policy_violation', 'content_filtered', 'data_inspection_failed'];
// DeepSeek: 400 "Content Exists Risk"; Moonshot: "…considered high risk"; Azure/OpenAI: "…content management policy".
const TEXT = /content exists risk|considered high risk|content (management )?policy|content_filter/i;

/**
 * True when a provider refused the request for its content (a content-policy rejection): a `type`/`code` of
 * `content_filter` (Moonshot), `content_policy_violation` (OpenAI), `data_inspection_failed` (Qwen), or a message
 * saying so (DeepSeek "Content Exists Risk"). It is the request's fault: a route does not fail over on it (by
 * default) and its reason reaches the caller.
 *
 * @param error - Any error.
 * @returns Whether it is a content-policy rejection.
 */
export function isContentPolicyError(error: unknown): boolean {
  if (!isUpstreamHttpError(error) && !isUpstreamStreamError(error)) return false;
  return isNamedUpstreamError(error, CODES) || TEXT.test(error.message);
}
