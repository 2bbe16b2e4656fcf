import {
  isAbortedError,
  isAnswerFailedError,
  isCapacityError,
  isNetworkError,
  isRequestError,
  isShutdownError,
  isStreamLogError,
  isStreamProtocolError,
  isTimeoutError,
  isToolCallError,
  isToolExecutionError,
  isUpstreamHttpError,
  isUpstreamStreamError,
  type StreamLogErrorCode,
} from './errors.js';
import { isNamedUpstreamError } from './isNamedUpstreamError.js';
import { publicErrorResponseOf } from './publicErrorResponse.js';
import { redactSecrets } from './redactSecrets.js';
import { DEFAULT_RETRY_POLICY } from './retryPolicy.js';
import { truncate } from './truncate.js';
import type { ErrorBody } from './schemas/contract.js';

/** What a client is told about an error: the HTTP status (when headers are not sent yet) and the public body. */
export interface ErrorResponse {
  /** The HTTP status to answer with, when the response is not committed yet. */
  status: number;
  /** The spec's `{message, type, code}`: secrets redacted, no stack, no internals. */
  body: ErrorBody;
  /** For a `429` the wait the provider asked for, for a `503` shutdown or a capacity refusal the wait before a retry: whole seconds (for a `Retry-After` header). */
  retryAfterSeconds?: number;
}

/** Options of {@link toErrorResponse}. */
export interface ToErrorResponseConfig {
  /** Literal secrets (API keys, gateway keys) to remove from messages, whatever their shape. */
  secrets?: readonly string[];
}

/** The status of each `StreamLogError` code (a resumable answer's). */
const STREAM_LOG_STATUS: Readonly<Record<StreamLogErrorCode, number>> = {
  stream_not_found: 404,
  stream_exists: 409,
  stream_truncated: 410,
  cancelled: 499,
  abandoned: 499,
  stream_unavailable: 503,
  producer_lost: 503,
};

const MAX_MESSAGE = 1000;
/** The longest wire `code`: a provider's own code passes through, and a provider can put anything in it. */
const MAX_CODE = 100;
const INTERNAL: ErrorResponse = {
  status: 500,
  body: { message: 'internal server error', type: 'server_error', code: 'internal_error' },
};

const respond = (
  status: number,
  type: string,
  code: string,
  message: string,
  secrets: readonly string[] | undefined,
): ErrorResponse => ({
  status,
  // Every string field, redacted before it is cut (a cut first can leave a start of a key that no rule recognises).
  body: {
    message: truncate(redactSecrets(message, secrets), MAX_MESSAGE),
    type,
    code: truncate(redactSecrets(code, secrets), MAX_CODE),
  },
});

/**
 * THE mapping of any error to what a client of the three endpoints sees: an HTTP status and the spec's error body
 * `{message, type, code}`. Every adapter and the `toNdjson` / `toSse` error frames go through it.
 *
 * | error                                         | status | type                    | code                                                |
 * |-----------------------------------------------|--------|-------------------------|-----------------------------------------------------|
 * | RequestError `invalid_request`                | 400    | `invalid_request_error` | `invalid_request`                                   |
 * | RequestError `unauthorized`                   | 401    | `authentication_error`  | `unauthorized`                                      |
 * | RequestError `payload_too_large`              | 413    | `invalid_request_error` | `payload_too_large`                                 |
 * | RequestError `unsupported_media_type`         | 415    | `invalid_request_error` | `unsupported_media_type`                            |
 * | RequestError `request_timeout`                | 408    | `invalid_request_error` | `request_timeout`                                   |
 * | RequestError `client_stalled` (log only)      | 408    | `invalid_request_error` | `client_stalled`                                    |
 * | RequestError `forbidden`                      | 403    | `permission_error`      | `forbidden`                                         |
 * | UpstreamHttpError with a quota type or code   | 502    | `upstream_error`        | `exceeded_current_quota_error` / `insufficient_quota` |
 * | UpstreamHttpError 429                         | 429    | `rate_limit_error`      | upstream code, else type, else `upstream_http`      |
 * | UpstreamHttpError 401 / 403 (our key refused) | 502    | `upstream_error`        | `upstream_auth_failed`                              |
 * | UpstreamHttpError, any other status           | 502    | `upstream_error`        | upstream code, else type, else `upstream_http`      |
 * | UpstreamStreamError                           | 502    | `upstream_error`        | upstream code, else type, else `upstream_error`     |
 * | StreamProtocolError                           | 502    | `upstream_error`        | its code (`stream_incomplete`, `malformed_json`, …) |
 * | AnswerFailedError                             | 502    | `upstream_error`        | `answer_failed`                                     |
 * | ToolCallError                                 | 502    | `upstream_error`        | `tool_arguments_invalid`                            |
 * | ToolExecutionError (a tool of `runTools`)     | 500    | `server_error`          | `tool_failed` (the tool named, not its error)       |
 * | NetworkError (unreachable, or cut mid-answer) | 502    | `upstream_error`        | `network`                                           |
 * | TimeoutError                                  | 504    | `timeout_error`         | `timeout`                                           |
 * | AbortedError                                  | 499    | `aborted_error`         | `aborted`                                           |
 * | ShutdownError                                 | 503    | `server_error`          | `shutting_down` (with `Retry-After`)                |
 * | StreamLogError `stream_not_found`             | 404    | `invalid_request_error` | `stream_not_found`                                  |
 * | StreamLogError `stream_exists`                | 409    | `invalid_request_error` | `stream_exists`                                     |
 * | StreamLogError `stream_truncated`             | 410    | `invalid_request_error` | `stream_truncated`                                  |
 * | StreamLogError `cancelled` / `abandoned`      | 499    | `aborted_error`         | `cancelled` / `abandoned`                           |
 * | StreamLogError `stream_unavailable`           | 503    | `server_error`          | `stream_unavailable` (with `Retry-After`)           |
 * | StreamLogError `producer_lost`                | 503    | `server_error`          | `producer_lost`                                     |
 * | CapacityError `upstream_busy`                 | 503    | `server_error`          | `upstream_busy` (with `Retry-After`)                |
 * | CapacityError `concurrency_limit`             | 429    | `rate_limit_error`      | `concurrency_limit` (with `Retry-After`)            |
 * | CapacityError `rate_limit_exceeded`           | 429    | `rate_limit_error`      | `rate_limit_exceeded` (with `Retry-After`)          |
 * | CapacityError `limits_unavailable`            | 503    | `server_error`          | `limits_unavailable` (with `Retry-After`)           |
 * | CapacityError `insufficient_quota`            | 429    | `insufficient_quota`    | `insufficient_quota` (no `Retry-After`)             |
 * | Nest HttpException 4xx/503 (chatflux/nestjs)  | same   | `invalid_request_error` | from the status: `forbidden`, `not_found`, …        |
 * | ConfigError, anything else                    | 500    | `server_error`          | `internal_error`                                    |
 *
 * 1. Messages and codes pass through `redactSecrets` (`sk-…`, `Bearer …`, `api_key=…`, and every string in
 *    `config.secrets`), then are capped (a message at 1000 characters, a code at 100): a provider's `code` or `type`
 *    quoting our key is redacted as its message is. Stacks, causes, snippets and response bodies are never included.
 * 2. An upstream 401/403 means the gateway's own key was refused: the client cannot fix that, so it is a `502` with
 *    a fixed message (the provider's text may quote our key).
 * 3. A `NetworkError` gets a fixed message (the original may name internal hosts and addresses): "the upstream
 *    provider could not be reached", or, when the connection broke after the response had started
 *    (`midResponse`), "the connection to the upstream provider was cut mid-answer". The code is `network` either way.
 * 4. A `ConfigError` or a foreign error is a bug on our side: a `500` with a fixed message, nothing of the original.
 * 5. The provider's `code` is passed on as `code` (else its `type`, e.g. Moonshot's `engine_overloaded_error`, which
 *    has no code), so a client can tell rate limits and overloads apart; `type` is always one of the table's.
 * 6. `499` (nginx's "client closed request") is for logs: an aborted request has nobody left to read it.
 * 7. An adapter may attach the response it decided for a framework's own exception (`PUBLIC_ERROR_RESPONSE`): the
 *    status, `type` and `code` are kept (a 429 is a `rate_limit_error`, a 503 a `server_error`), the message is
 *    redacted and capped as any other.
 *
 * ## Example
 * ```ts
 * const { status, body, retryAfterSeconds } = toErrorResponse(error, { secrets: [apiKey] });
 * if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
 * res.status(status).json({ error: body });
 * ```
 *
 * @param error - Anything caught or received as an error notification.
 * @param config - Secrets to redact.
 * @returns The status and the public body (and the retry hint for a `429`).
 */
export function toErrorResponse(error: unknown, config: ToErrorResponseConfig = {}): ErrorResponse {
  const { secrets } = config;
  const mapped = publicErrorResponseOf(error);
  if (mapped !== undefined) return respond(mapped.status, mapped.type, mapped.code, String((error as Error).message), secrets);
  if (isRequestError(error)) {
    switch (error.code) {
      case 'unauthorized':
        return respond(401, 'authentication_error', error.code, error.message, secrets);
      case 'payload_too_large':
        return respond(413, 'invalid_request_error', error.code, error.message, secrets);
      case 'unsupported_media_type':
        return respond(415, 'invalid_request_error', error.code, error.message, secrets);
      case 'request_timeout':
      case 'client_stalled': // only logged: a client that does not read is not sent anything more
        return respond(408, 'invalid_request_error', error.code, error.message, secrets);
      case 'forbidden':
        return respond(403, 'permission_error', error.code, error.message, secrets);
      default:
        return respond(400, 'invalid_request_error', 'invalid_request', error.message, secrets);
    }
  }
  if (isUpstreamHttpError(error)) {
    const code = error.upstreamCode ?? error.upstreamType ?? error.code;
    if (isNamedUpstreamError(error, DEFAULT_RETRY_POLICY.neverUpstreamTypes)) {
      // The gateway's account is out of quota: no wait on the client's side refills it, so no 429 inviting a retry.
      return respond(502, 'upstream_error', code, error.message, secrets);
    }
    if (error.status === 429) {
      const out = respond(429, 'rate_limit_error', code, error.message, secrets);
      if (error.retryAfterMs !== undefined && Number.isFinite(error.retryAfterMs) && error.retryAfterMs >= 0) {
        out.retryAfterSeconds = Math.ceil(error.retryAfterMs / 1000);
      }
      return out;
    }
    if (error.status === 401 || error.status === 403) {
      return respond(
        502,
        'upstream_error',
        'upstream_auth_failed',
        `the upstream provider refused the gateway's credentials (HTTP ${error.status})`,
        secrets,
      );
    }
    return respond(502, 'upstream_error', code, error.message, secrets);
  }
  if (isUpstreamStreamError(error)) {
    return respond(
      502,
      'upstream_error',
      error.upstreamCode ?? error.upstreamType ?? error.code,
      error.message,
      secrets,
    );
  }
  if (isStreamProtocolError(error) || isAnswerFailedError(error) || isToolCallError(error)) {
    return respond(502, 'upstream_error', error.code, error.message, secrets);
  }
  if (isToolExecutionError(error)) {
    // The tool is the service's own code: its error may name internals, so only the tool's name is said.
    return respond(500, 'server_error', error.code, `the tool "${truncate(String(error.toolName), 100)}" failed`, secrets);
  }
  if (isNetworkError(error)) {
    // A cut answer is not an unreachable provider: say which (a client may retry the one, report the other).
    const message =
      (error as { midResponse?: unknown }).midResponse === true
        ? 'the connection to the upstream provider was cut mid-answer'
        : 'the upstream provider could not be reached';
    return respond(502, 'upstream_error', error.code, message, secrets);
  }
  if (isTimeoutError(error)) return respond(504, 'timeout_error', error.code, error.message, secrets);
  if (isAbortedError(error)) return respond(499, 'aborted_error', error.code, error.message, secrets);
  if (isCapacityError(error)) {
    // A spent budget: not worth retrying before its period ends, so no Retry-After (the refusal says `x-should-retry: false`)
    if (error.code === 'insufficient_quota') return respond(429, 'insufficient_quota', error.code, error.message, secrets);
    const out =
      error.code === 'concurrency_limit' || error.code === 'rate_limit_exceeded'
        ? respond(429, 'rate_limit_error', error.code, error.message, secrets)
        : respond(503, 'server_error', error.code, error.message, secrets);
    out.retryAfterSeconds = error.retryAfterSeconds;
    return out;
  }
  if (isStreamLogError(error)) {
    const status = STREAM_LOG_STATUS[error.code as StreamLogErrorCode] ?? 500;
    const out = respond(status, status === 499 ? 'aborted_error' : status < 500 ? 'invalid_request_error' : 'server_error', error.code, error.message, secrets);
    if (error.retryAfterSeconds !== undefined) out.retryAfterSeconds = error.retryAfterSeconds;
    return out;
  }
  if (isShutdownError(error)) {
    const out = respond(503, 'server_error', error.code, error.message, secrets);
    out.retryAfterSeconds = error.retryAfterSeconds;
    return out;
  }
  return { status: INTERNAL.status, body: { ...INTERNAL.body } };
}
