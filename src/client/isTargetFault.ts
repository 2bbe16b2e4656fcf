import {
  isAnswerFailedError,
  isNetworkError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamHttpError,
  isUpstreamStreamError,
} from '../core/errors.js';
import { isContentPolicyError } from '../core/isContentPolicyError.js';
import { isContextLengthError } from '../core/isContextLengthError.js';
import { isTransientError } from '../operators/isTransientError.js';
import { DEFAULT_RETRY_POLICY } from '../core/retryPolicy.js';

/** Upstream statuses that say the target (its key, account, model or deployment) is unusable, not the request. */
const TARGET_STATUSES = [401, 402, 403, 404];

/**
 * True when an error says the target is unhealthy or unusable — what a route fails over on and what its circuit
 * breaker counts: a transient failure (`isTransientError`), a connection cut, a silent target (`headers`,
 * `first_chunk`, `idle` timeouts), a refused key, balance or quota (401, 402, 403, 404, quota types), a broken stream
 * (`StreamProtocolError` except `answer_too_large` and `continuation_mismatch`: an answer started again is a prefill the
 * target does not take, not ill health; an in-band error, a failed finish). Not the request's own faults
 * (400, 422, a content-policy rejection, a context-length refusal), aborts, or local errors.
 *
 * @param error - Any error.
 * @returns Whether the target is at fault.
 */
export function isTargetFault(error: unknown): boolean {
  if (isContentPolicyError(error) || isContextLengthError(error)) return false;
  if (isTransientError(error, DEFAULT_RETRY_POLICY) || isNetworkError(error)) return true;
  if (isTimeoutError(error)) return error.phase !== 'total';
  if (isUpstreamHttpError(error)) {
    if (TARGET_STATUSES.includes(error.status)) return true;
    return DEFAULT_RETRY_POLICY.neverUpstreamTypes.some((t) => t === error.upstreamType || t === error.upstreamCode);
  }
  if (isUpstreamStreamError(error) || isAnswerFailedError(error)) return true;
  return isStreamProtocolError(error) && error.code !== 'answer_too_large' && error.code !== 'continuation_mismatch';
}
