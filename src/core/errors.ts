/**
 * The one error family of chatflux.
 *
 * Every error chatflux raises is a {@link ChatfluxError} with a {@link ChatfluxErrorCode}, the standard `cause`,
 * and the context fields of its subclass. Guards work across realms (they test `name` and `code`, not
 * `instanceof`). Messages never contain API keys or Authorization headers; `toJSON()` leaves out `cause`.
 *
 * How an error becomes the public body `{message, type, code}` and an HTTP status is decided in one place:
 * `toErrorResponse` (`src/errorResponse.ts`).
 */

/** Every `code` a chatflux error can carry. */
export type ChatfluxErrorCode =
  // the SSE byte stream and its events
  | 'sse_event_too_large'
  | 'sse_invalid_utf8'
  | 'malformed_json'
  | 'schema_violation'
  | 'stream_incomplete'
  | 'unexpected_content_type'
  | 'answer_too_large'
  | 'continuation_mismatch'
  // the provider said no, in band or as an HTTP status
  | 'upstream_error'
  | 'upstream_http'
  | 'answer_failed'
  // transport
  | 'network'
  | 'timeout'
  | 'aborted'
  // this server is stopping
  | 'shutting_down'
  // this server has no capacity for the request now
  | 'upstream_busy'
  | 'concurrency_limit'
  | 'rate_limit_exceeded'
  | 'limits_unavailable'
  | 'insufficient_quota'
  // tool calls
  | 'tool_arguments_invalid'
  | 'tool_failed'
  // a downstream client's request
  | 'invalid_request'
  | 'unauthorized'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_timeout'
  | 'forbidden'
  | 'client_stalled'
  // a logged (resumable) stream: the log's answers, and how a stream ended other than by its answer
  | StreamLogErrorCode
  // a programmer's misuse of the API
  | 'invalid_config';

/** Options every chatflux error accepts. */
export interface ChatfluxErrorOptions {
  /** The underlying error, kept for logs (never serialised to clients). */
  cause?: unknown;
}

/** Base class of every chatflux error. */
export class ChatfluxError extends Error {
  /** The class name (`'ChatfluxError'`, or the subclass's): what the cross-realm guards test. */
  override name: string = 'ChatfluxError';
  /** What went wrong, as a stable machine-readable code. */
  readonly code: ChatfluxErrorCode;

  constructor(code: ChatfluxErrorCode, message: string, options: ChatfluxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** A JSON view without `cause` or stack: safe to log. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this)) if (key !== 'cause') out[key] = value;
    return { ...out, name: this.name, code: this.code, message: this.message };
  }
}

/**
 * The SSE byte stream or one of its events is unusable: bad UTF-8, oversize, bad JSON, wrong shape, cut short — or
 * the answer is larger than a buffering result may hold (`answer_too_large`), or a continuation answered afresh instead of
 * continuing its prefix (`continuation_mismatch`).
 */
export class StreamProtocolError extends ChatfluxError {
  /** Always `'StreamProtocolError'`. */
  override name = 'StreamProtocolError' as const;
  /** The offending input, truncated (absent when there is none). */
  readonly snippet: string | undefined;

  constructor(
    code:
      | 'sse_event_too_large'
      | 'sse_invalid_utf8'
      | 'malformed_json'
      | 'schema_violation'
      | 'stream_incomplete'
      | 'unexpected_content_type'
      | 'answer_too_large'
      | 'continuation_mismatch',
    message: string,
    options: ChatfluxErrorOptions & { snippet?: string } = {},
  ) {
    super(code, message, options);
    this.snippet = options.snippet;
  }
}

/** The provider reported an error inside a 200 stream (`event: error`, or a `{"error":…}` payload). */
export class UpstreamStreamError extends ChatfluxError {
  /** Always `'UpstreamStreamError'`. */
  override name = 'UpstreamStreamError' as const;
  /** The provider's error `type`, when it gave one. */
  readonly upstreamType: string | undefined;
  /** The provider's error `code`, when it gave one. */
  readonly upstreamCode: string | undefined;

  constructor(message: string, options: ChatfluxErrorOptions & { upstreamType?: string; upstreamCode?: string } = {}) {
    super('upstream_error', message, options);
    this.upstreamType = options.upstreamType;
    this.upstreamCode = options.upstreamCode;
  }
}

/** The provider answered with a non-2xx status. */
export class UpstreamHttpError extends ChatfluxError {
  /** Always `'UpstreamHttpError'`. */
  override name = 'UpstreamHttpError' as const;
  /** The upstream HTTP status. */
  readonly status: number;
  /** The provider's error `type` (`rate_limit_reached_error`, `invalid_request_error`, …), when given. */
  readonly upstreamType: string | undefined;
  /** The provider's error `code`, when given. */
  readonly upstreamCode: string | undefined;
  /** The wait the provider asked for (`retry-after-ms`, `Retry-After`, or "try again after N seconds"), in ms. */
  readonly retryAfterMs: number | undefined;
  /** The response body, truncated (an HTML page from a proxy, or the JSON error). */
  readonly body: string | undefined;

  constructor(
    status: number,
    message: string,
    options: ChatfluxErrorOptions & { upstreamType?: string; upstreamCode?: string; retryAfterMs?: number; body?: string } = {},
  ) {
    super('upstream_http', message, options);
    this.status = status;
    this.upstreamType = options.upstreamType;
    this.upstreamCode = options.upstreamCode;
    this.retryAfterMs = options.retryAfterMs;
    this.body = options.body;
  }
}

/** The stream ended properly but the answer is not usable (`finish_reason: insufficient_system_resource`). */
export class AnswerFailedError extends ChatfluxError {
  /** Always `'AnswerFailedError'`. */
  override name = 'AnswerFailedError' as const;
  /** The finish reason that failed the answer. */
  readonly finishReason: string;

  constructor(finishReason: string, message: string, options: ChatfluxErrorOptions = {}) {
    super('answer_failed', message, options);
    this.finishReason = finishReason;
  }
}

/** The connection failed or broke (refused, reset, DNS, `terminated`). */
export class NetworkError extends ChatfluxError {
  /** Always `'NetworkError'`. */
  override name = 'NetworkError' as const;
  /**
   * `true` when the connection broke after the response had started (status and headers received, the body being
   * read): the provider was reached and was answering, and the answer was cut. `false`: it could not be reached
   * (refused, DNS, reset before the response).
   */
  readonly midResponse: boolean;
  constructor(message: string, options: ChatfluxErrorOptions & { midResponse?: boolean } = {}) {
    super('network', message, options);
    this.midResponse = options.midResponse ?? false;
  }
}

/** Where a timeout fired. */
export type TimeoutPhase = 'connect' | 'headers' | 'first_chunk' | 'idle' | 'total';

/** A deadline passed; the request was aborted. */
export class TimeoutError extends ChatfluxError {
  /** Always `'TimeoutError'`. */
  override name = 'TimeoutError' as const;
  /** Which deadline passed. */
  readonly phase: TimeoutPhase;
  /** The deadline, in milliseconds. */
  readonly timeoutMs: number;

  constructor(phase: TimeoutPhase, timeoutMs: number, options: ChatfluxErrorOptions = {}) {
    super('timeout', `upstream ${phase.replace('_', ' ')} timeout after ${timeoutMs} ms`, options);
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

/** The work was cancelled by an `AbortSignal` the caller controls. */
export class AbortedError extends ChatfluxError {
  /** Always `'AbortedError'`. */
  override name = 'AbortedError' as const;
  constructor(message = 'the request was aborted', options: ChatfluxErrorOptions = {}) {
    super('aborted', message, options);
  }
}

/**
 * The server is shutting down and ended (or refused) this response. Unlike {@link AbortedError} — the caller's own
 * cancellation, which nobody is left to hear — a client is still connected and is told to try again elsewhere:
 * `503` with `Retry-After` before the headers, an in-band error frame after.
 */
export class ShutdownError extends ChatfluxError {
  /** Always `'ShutdownError'`. */
  override name = 'ShutdownError' as const;
  /** How long a client should wait before it retries, in seconds (a `Retry-After` for the 503). */
  readonly retryAfterSeconds: number;
  constructor(
    message = 'the server is shutting down; retry the request',
    options: ChatfluxErrorOptions & { retryAfterSeconds?: number } = {},
  ) {
    super('shutting_down', message, options);
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
  }
}

/**
 * This server refused work it has no capacity for right now, and says when to try again: no upstream connection
 * became free within the client's `connectionWaitMs` (`upstream_busy`: a `503`), or one client already has as many
 * requests running as it may (`concurrency_limit`: a `429`), or a client is over its `limits` (`rate_limit_exceeded`:
 * a `429`), or those limits cannot be checked under the `'closed'` policy (`limits_unavailable`: a `503`). All carry
 * `Retry-After`; none is retried by
 * `retryOnTransient` (waiting again in the same queue would only double the wait). A client whose token budget
 * (`tokensPerDay`, `tokensPerMonth`) is spent gets `insufficient_quota` (a `429` that is NOT worth retrying soon: no
 * `Retry-After`, and `x-should-retry: false`, which OpenAI's SDKs obey; `retryAfterSeconds` is when the budget is whole
 * again).
 */
export class CapacityError extends ChatfluxError {
  /** Always `'CapacityError'`. */
  override name = 'CapacityError' as const;
  /** How long a client should wait before it retries, in seconds (a `Retry-After`). */
  readonly retryAfterSeconds: number;
  constructor(
    code: 'upstream_busy' | 'concurrency_limit' | 'rate_limit_exceeded' | 'limits_unavailable' | 'insufficient_quota',
    message: string,
    options: ChatfluxErrorOptions & { retryAfterSeconds?: number } = {},
  ) {
    super(code, message, options);
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
  }
}

/** A tool call's arguments are not valid JSON, or fail the schema configured for the function. */
export class ToolCallError extends ChatfluxError {
  /** Always `'ToolCallError'`. */
  override name = 'ToolCallError' as const;
  /** The function whose arguments failed. */
  readonly functionName: string;
  /** The tool call's id, verbatim. */
  readonly toolCallId: string | undefined;

  constructor(functionName: string, message: string, options: ChatfluxErrorOptions & { toolCallId?: string } = {}) {
    super('tool_arguments_invalid', message, options);
    this.functionName = functionName;
    this.toolCallId = options.toolCallId;
  }
}

/**
 * A tool that `runTools` ran failed — it threw, rejected or errored — and the loop ended with this error (unless the
 * loop reports tool failures to the model: `toolErrors: 'report'`). The message names the tool and the call; the
 * tool's own error is the `cause` (a public error body never shows it).
 */
export class ToolExecutionError extends ChatfluxError {
  /** Always `'ToolExecutionError'`. */
  override name = 'ToolExecutionError' as const;
  /** The tool that failed (the function name the model called). */
  readonly toolName: string;
  /** The tool call's id, verbatim. */
  readonly toolCallId: string;

  constructor(toolName: string, toolCallId: string, options: ChatfluxErrorOptions = {}) {
    const cause = options.cause;
    const reason = cause instanceof Error ? cause.message : cause === undefined ? 'it failed' : String(cause);
    super('tool_failed', `the tool "${toolName}" (call "${toolCallId}") failed: ${reason}`, options);
    this.toolName = toolName;
    this.toolCallId = toolCallId;
  }
}

/** A downstream client's request was refused before anything was sent upstream. */
export class RequestError extends ChatfluxError {
  /** Always `'RequestError'`. */
  override name = 'RequestError' as const;
  /** Where the request is wrong, as `path: message` lines (zod issues), when known. */
  readonly issues: readonly string[];

  constructor(
    code: 'invalid_request' | 'unauthorized' | 'payload_too_large' | 'unsupported_media_type' | 'request_timeout' | 'forbidden' | 'client_stalled',
    message: string,
    options: ChatfluxErrorOptions & { issues?: readonly string[] } = {},
  ) {
    super(code, message, options);
    this.issues = options.issues ?? [];
  }
}

/** The codes of a {@link StreamLogError}. */
export type StreamLogErrorCode =
  | 'stream_not_found'
  | 'stream_unavailable'
  | 'stream_truncated'
  | 'stream_exists'
  | 'cancelled'
  | 'abandoned'
  | 'producer_lost';

/**
 * A logged (resumable) stream cannot be served as asked, or ended other than by its answer:
 *
 * ```text
 * stream_not_found    the log does not know the id (never existed, or past its retention)
 * stream_unavailable  the shared store is unreachable and the stream is not in this process: retry later
 * stream_truncated    the log does not hold the values after `position` (past the per-stream cap, or written while
 *                     the store was down)
 * stream_exists       `open` with an id already in the log
 * cancelled           the stream was cancelled (an in-band error for its readers)
 * abandoned           no reader was attached for the abandon time, so the producer stopped
 * producer_lost       the producer died (its lease ran out) before ending the stream
 * ```
 */
export class StreamLogError extends ChatfluxError {
  /** Always `'StreamLogError'`. */
  override name = 'StreamLogError' as const;
  /** The stream's id. */
  readonly streamId: string;
  /** For `stream_truncated`: the last position the log holds (`-1`: none). */
  readonly position: number | undefined;
  /** For `stream_unavailable`: how long to wait before retrying, in seconds. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: StreamLogErrorCode,
    streamId: string,
    message: string,
    options: ChatfluxErrorOptions & { position?: number; retryAfterSeconds?: number } = {},
  ) {
    super(code, message, options);
    this.streamId = streamId;
    this.position = options.position;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** An API was called wrongly; the message says how to fix the call. */
export class ConfigError extends ChatfluxError {
  /** Always `'ConfigError'`. */
  override name = 'ConfigError' as const;
  constructor(message: string, options: ChatfluxErrorOptions = {}) {
    super('invalid_config', message, options);
  }
}

// A string `code` as well: a DOMException named 'TimeoutError' (AbortSignal.timeout) has a numeric one.
const hasName = (error: unknown, name: string): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { name?: unknown }).name === name &&
  typeof (error as { code?: unknown }).code === 'string';

/** True for any chatflux error, from any realm. */
export function isChatfluxError(error: unknown): error is ChatfluxError {
  return (
    error instanceof ChatfluxError ||
    (error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && /Error$/.test(error.name) && 'toJSON' in error)
  );
}
/** True for a {@link StreamProtocolError}. */
export const isStreamProtocolError = (error: unknown): error is StreamProtocolError => hasName(error, 'StreamProtocolError');
/** True for an {@link UpstreamStreamError}. */
export const isUpstreamStreamError = (error: unknown): error is UpstreamStreamError => hasName(error, 'UpstreamStreamError');
/** True for an {@link UpstreamHttpError}. */
export const isUpstreamHttpError = (error: unknown): error is UpstreamHttpError => hasName(error, 'UpstreamHttpError');
/** True for an {@link AnswerFailedError}. */
export const isAnswerFailedError = (error: unknown): error is AnswerFailedError => hasName(error, 'AnswerFailedError');
/** True for a {@link NetworkError}. */
export const isNetworkError = (error: unknown): error is NetworkError => hasName(error, 'NetworkError');
/** True for a {@link TimeoutError}. */
export const isTimeoutError = (error: unknown): error is TimeoutError => hasName(error, 'TimeoutError');
/** True for an {@link AbortedError}. */
export const isAbortedError = (error: unknown): error is AbortedError => hasName(error, 'AbortedError');
/** True for a {@link ShutdownError}. */
export const isShutdownError = (error: unknown): error is ShutdownError => hasName(error, 'ShutdownError');
/** True for a {@link CapacityError}. */
export const isCapacityError = (error: unknown): error is CapacityError => hasName(error, 'CapacityError');
/** True for a {@link ToolCallError}. */
export const isToolCallError = (error: unknown): error is ToolCallError => hasName(error, 'ToolCallError');
/** True for a {@link ToolExecutionError}. */
export const isToolExecutionError = (error: unknown): error is ToolExecutionError => hasName(error, 'ToolExecutionError');
/** True for a {@link RequestError}. */
export const isRequestError = (error: unknown): error is RequestError => hasName(error, 'RequestError');
/** True for a {@link ConfigError}. */
export const isConfigError = (error: unknown): error is ConfigError => hasName(error, 'ConfigError');
/** True for a {@link StreamLogError}. */
export const isStreamLogError = (error: unknown): error is StreamLogError => hasName(error, 'StreamLogError');
