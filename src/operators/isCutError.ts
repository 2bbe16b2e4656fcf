import {
  isAnswerFailedError,
  isNetworkError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
} from '../core/errors.js';
import { isContentPolicyError } from '../core/isContentPolicyError.js';

const CUT_PROTOCOL_CODES = ['stream_incomplete', 'malformed_json', 'schema_violation', 'sse_invalid_utf8'];

/**
 * True when an answer stream was cut by the provider's side and the rest can be asked for: the connection broke
 * (`NetworkError`), the stream went silent (`TimeoutError` `idle`, or `first_chunk`), the provider wrote an in-band
 * error (`UpstreamStreamError`, except a content-policy one), the stream ended early or carried a broken event
 * (`StreamProtocolError` `stream_incomplete`, `malformed_json`, `schema_violation`, `sse_invalid_utf8`), or it
 * finished with a capacity failure (`AnswerFailedError`, `insufficient_system_resource`). Never the caller's own
 * abort, a shutdown, an answer over its size cap, a `total` deadline or a tool call's bad arguments.
 *
 * @param error - Any error.
 * @returns Whether the answer may be continued elsewhere.
 */
export function isCutError(error: unknown): boolean {
  if (isNetworkError(error)) return true;
  if (isTimeoutError(error)) return error.phase === 'idle' || error.phase === 'first_chunk';
  if (isUpstreamStreamError(error)) return !isContentPolicyError(error);
  if (isStreamProtocolError(error)) return CUT_PROTOCOL_CODES.includes(error.code);
  return isAnswerFailedError(error);
}
