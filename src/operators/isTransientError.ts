import {
  isAnswerFailedError,
  isNetworkError,
  isTimeoutError,
  isUpstreamHttpError,
  isUpstreamStreamError,
} from '../core/errors.js';
import { isNamedUpstreamError } from '../core/isNamedUpstreamError.js';
import type { RetryPolicy } from '../core/retryPolicy.js';

/**
 * True when `error` is worth another attempt under `policy`: a `NetworkError`; an `UpstreamHttpError` with a transient
 * status or overload type (never one of `neverStatuses`); an in-band `UpstreamStreamError` with an overload type; a
 * `TimeoutError` of a retried phase; an `AnswerFailedError` with a capacity finish reason. A provider error whose
 * `type` or `code` is in `neverUpstreamTypes` (quota used up) is not, whatever its status. Everything else —
 * `AbortedError`, `StreamProtocolError`, `ToolCallError`, `RequestError`, `ConfigError`, foreign errors — is not.
 */
export function isTransientError(
  error: unknown,
  policy: Pick<
    RetryPolicy,
    'statuses' | 'neverStatuses' | 'upstreamTypes' | 'neverUpstreamTypes' | 'timeoutPhases' | 'finishReasons'
  >,
): boolean {
  if (isNetworkError(error)) return true;
  if (isUpstreamHttpError(error) || isUpstreamStreamError(error)) {
    if (isNamedUpstreamError(error, policy.neverUpstreamTypes)) return false;
    const overloaded = error.upstreamType !== undefined && policy.upstreamTypes.includes(error.upstreamType);
    if (isUpstreamStreamError(error)) return overloaded;
    if (policy.neverStatuses.includes(error.status)) return false;
    return policy.statuses.includes(error.status) || overloaded;
  }
  if (isTimeoutError(error)) return policy.timeoutPhases.includes(error.phase);
  if (isAnswerFailedError(error)) return policy.finishReasons.includes(error.finishReason);
  return false;
}
