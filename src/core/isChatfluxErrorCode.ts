import type { ChatfluxErrorCode } from './errors.js';

// Keyed by the union: the compiler refuses this table when a code is added to `ChatfluxErrorCode` and not here.
const CODES: Readonly<Record<ChatfluxErrorCode, true>> = {
  sse_event_too_large: true,
  sse_invalid_utf8: true,
  malformed_json: true,
  schema_violation: true,
  stream_incomplete: true,
  unexpected_content_type: true,
  answer_too_large: true,
  continuation_mismatch: true,
  upstream_error: true,
  upstream_http: true,
  answer_failed: true,
  network: true,
  timeout: true,
  aborted: true,
  shutting_down: true,
  upstream_busy: true,
  concurrency_limit: true,
  rate_limit_exceeded: true,
  limits_unavailable: true,
  insufficient_quota: true,
  tool_arguments_invalid: true,
  tool_failed: true,
  invalid_request: true,
  unauthorized: true,
  payload_too_large: true,
  unsupported_media_type: true,
  request_timeout: true,
  forbidden: true,
  client_stalled: true,
  stream_not_found: true,
  stream_unavailable: true,
  stream_truncated: true,
  stream_exists: true,
  cancelled: true,
  abandoned: true,
  producer_lost: true,
  invalid_config: true,
};

/**
 * True when `code` is one of chatflux's own error codes (`ChatfluxErrorCode`): a value from a fixed set, unlike a
 * provider's own `code` or `type`, which the public error body passes on and which can be anything. What may label a
 * metric (`error.type`) is decided with it.
 *
 * @param code - Any value.
 * @returns Whether it is a `ChatfluxErrorCode`.
 */
export function isChatfluxErrorCode(code: unknown): code is ChatfluxErrorCode {
  return typeof code === 'string' && Object.hasOwn(CODES, code);
}
