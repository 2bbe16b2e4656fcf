import {
  isAnswerFailedError,
  isNetworkError,
  isTimeoutError,
  isUpstreamHttpError,
  isUpstreamStreamError,
} from '../errors.js';
import type { RetryPolicy } from './retryPolicy.js';

/**
 * True when `error` is worth another attempt under `policy`: a `NetworkError`; an `UpstreamHttpError` with a transient
 * status or overload type (never one of `neverStatuses`); an in-band `UpstreamStreamError` with an overload type; a
 * `TimeoutError` of a retried phase; an `AnswerFailedError` with a capacity finish reason. Everything else —
 * `AbortedError`, `StreamProtocolError`, `ToolCallError`, `RequestError`, foreign errors — is not.
 */
export function isTransientError(
  error: unknown,
  policy: Pick<RetryPolicy, 'statuses' | 'neverStatuses' | 'upstreamTypes' | 'timeoutPhases' | 'finishReasons'>,
): boolean {
  if (isNetworkError(error)) return true;
  if (isUpstreamHttpError(error)) {
    if (policy.neverStatuses.includes(error.status)) return false;
    return (
      policy.statuses.includes(error.status) ||
      (error.upstreamType !== undefined && policy.upstreamTypes.includes(error.upstreamType))
    );
  }
  if (isUpstreamStreamError(error))
    return error.upstreamType !== undefined && policy.upstreamTypes.includes(error.upstreamType);
  if (isTimeoutError(error)) return policy.timeoutPhases.includes(error.phase);
  if (isAnswerFailedError(error)) return policy.finishReasons.includes(error.finishReason);
  return false;
}
