import type { RequestLimitsConfig } from '../core/requestLimits.js';
import type { RequestPolicyConfig } from '../core/RequestPolicyConfig.js';

/**
 * What `resolveServingSettings` reads: the serving core's options (`ServingCoreConfig`, hence `ChatEndpointsConfig`
 * and `WebChatHandlersConfig`) that have a default, a bound or state built from them, declared here so that the
 * settings do not import the core that uses them.
 */
export interface ServingSettingsConfig {
  /** Accepted downstream Bearer keys; empty or absent: the endpoints are open. */
  apiKeys?: readonly string[];
  /** The JSON body limit (bytes, or a string such as `'1mb'`); larger bodies get 413. Default `'1mb'`. */
  bodyLimit?: number | string;
  /**
   * The longest wait for a whole request body, in ms; a slower body gets 408 `request_timeout` and its connection is
   * closed. Default 30000; `0`: none (Node's `requestTimeout`, 300 s, still applies).
   */
  bodyTimeoutMs?: number;
  /**
   * The most requests one client may have running at once (from the moment its key is accepted until its response
   * ends); past it, 429 `concurrency_limit` with `Retry-After`. A client is its Bearer key when `apiKeys` are
   * configured, else its remote address (see `clientKey`). Default 32; `0`: no limit.
   */
  maxConcurrentPerClient?: number;
  /** Bounds checked before a body is validated (messages, nesting, values, characters, issues reported); see `DEFAULT_REQUEST_LIMITS`. */
  requestLimits?: RequestLimitsConfig;
  /** The longest `q` query parameter of `GET /chat/sse`, in characters; longer gets 413. Default 8192. */
  queryLimit?: number;
  /**
   * The write stall deadline, in ms: a response whose client has not read (its socket not drained) for this long is
   * ended — the upstream aborted (its connection released), the client's socket destroyed, the log entry `failed`
   * with the code `client_stalled`. Default 30000; `0`: none (a client that never reads holds its request forever).
   */
  writeStallTimeoutMs?: number;
  /**
   * The secret that signs the short-lived tokens of `POST /chat/token` (HMAC-SHA256; at least 16 characters). Absent:
   * a random secret of this process (tokens do not pass between instances: give a cluster one secret).
   */
  tokenSecret?: string;
  /** How long a token of `POST /chat/token` lets `GET /chat/sse?token=…` in, in ms. Default 60000. */
  tokenTtlMs?: number;
  /** SSE heartbeat interval in ms (`0` disables). Default 15000. */
  heartbeatMs?: number;
  /** The longest string field of a log entry (model, error message, …), in characters; longer is cut. Default 1024. */
  maxLogFieldChars?: number;
  /** More literal secrets to redact from error messages (the `apiKeys` are always redacted). */
  secrets?: readonly string[];
  /**
   * Whether `/chat/json`, `/chat/stream` and `/chat/sse` forward a request's `n` > 1 (default `false`: 400
   * `invalid_request`, saying why). The contract has one message: the upstream generates — and bills — `n` answers, and
   * the client gets the first (`toOutput`, `toOutputChunks`). Allow it only for an upstream whose other choices you
   * want paid for anyway (cap it with `requestPolicy.maxN`). OpenAI's `POST /v1/chat/completions` refuses `n` > 1
   * whatever this says.
   */
  allowSeveralChoices?: boolean;
  /** What clients may ask for: allowed models, caps on `max_tokens` / `max_completion_tokens` and `n`, fields to strip (default: everything, forwarded intact). */
  requestPolicy?: RequestPolicyConfig;
}
