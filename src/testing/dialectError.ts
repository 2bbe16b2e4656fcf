import { STATUS_CODES } from 'node:http';
import type { EmulatorDialect } from './EmulatorDialect.js';

/** An error response as a provider sends it: status, headers and JSON body. */
export interface DialectErrorResponse {
  /** The HTTP status. */
  status: number;
  /** Response headers (content type, retry hints). */
  headers: Record<string, string>;
  /** The JSON error body, in the dialect's shape. */
  body: string;
}

/** Options of {@link dialectError}. */
export interface DialectErrorConfig {
  /** The error message (default: the dialect's own text for the status). */
  message?: string;
  /** The error type (default: the dialect's own for the status). */
  type?: string;
  /** The error's `code` (DeepSeek and openai shapes; Moonshot's body has none). */
  code?: string;
  /** Wait hint in seconds (Moonshot: into the message; openai: `Retry-After`; DeepSeek: ignored). */
  retryAfter?: number;
  /** Wait hint in ms (openai: `retry-after-ms`). */
  retryAfterMs?: number;
}

/** DeepSeek's documented statuses (docs/PROVIDERS.md "Errors"): message, type, code. The openai dialect shares them. */
const DEEPSEEK: Record<number, [string, string, string]> = {
  400: ['Invalid request: the request body is not in a valid format', 'invalid_request_error', 'invalid_request_error'],
  401: ['Authentication Fails, Your api key is invalid', 'authentication_error', 'invalid_request_error'],
  402: ['Insufficient Balance', 'unknown_error', 'invalid_request_error'],
  422: ['Invalid parameters', 'invalid_request_error', 'invalid_request_error'],
  429: ['Rate limit reached for requests', 'rate_limit_error', 'rate_limit_exceeded'],
  500: ['Internal server error', 'api_error', 'internal_error'],
  503: ['Service is too busy, please try again later', 'service_unavailable_error', 'server_overloaded'],
};

/** Moonshot's documented statuses (docs/PROVIDERS.md "Errors"): message, type. It documents no 402 and no 503. */
const MOONSHOT: Record<number, [string, string]> = {
  400: ['Invalid request: the request body is not in a valid format', 'invalid_request_error'],
  401: ['Invalid Authentication', 'invalid_authentication_error'],
  403: ['Your account is not permitted to access this resource', 'permission_denied_error'],
  404: ['Not found the model or Permission denied', 'resource_not_found_error'],
  429: ['Your account request reached organization max RPM: 3', 'rate_limit_reached_error'],
  500: ['Internal server error', 'server_error'],
};

/** Moonshot's message for a type asked for without a message (`error-type=…`, the `overloaded` scenario). */
const MOONSHOT_TYPE_MESSAGES: Record<string, string> = {
  engine_overloaded_error: 'The engine is currently overloaded, please try again later',
  exceeded_current_quota_error: 'Your account is suspended, please check your plan and billing details',
  content_filter: 'The request was rejected because it was considered high risk',
};

const LATER = ', please try again later';

/** A neutral error for a status no provider note documents: the status text, and a type derived from it. */
const neutral = (status: number): [string, string] => {
  const text = STATUS_CODES[status] ?? `HTTP ${status}`;
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return [text, `${words.join('_')}_error`];
};

/**
 * The error response of a provider for a status, in its dialect (docs/PROVIDERS.md "Errors").
 *
 * 1. DeepSeek and openai: `{"error":{"message","type","param":null,"code"}}`; Moonshot: `{"error":{"message","type"}}`
 *    with Moonshot's types (`invalid_authentication_error`, `rate_limit_reached_error`, `engine_overloaded_error`, …).
 * 2. Only the statuses docs/PROVIDERS.md documents get the provider's own text and type — DeepSeek (and openai) 400, 401,
 *    402, 422, 429, 500, 503; Moonshot 400, 401, 403, 404, 429, 500. Any other status gets a neutral body: the status
 *    text as message and a type derived from it (`Service Unavailable`, `service_unavailable_error`; DeepSeek shape:
 *    `"code":null`), never another status's body. Moonshot's overload is a 429 with `engine_overloaded_error`
 *    (ask for it with `type`): it has no documented 503.
 * 3. Neither DeepSeek nor Moonshot sends `Retry-After`; Moonshot writes "please try again after N seconds" into the
 *    message. The openai dialect sends `retry-after` / `retry-after-ms` when asked.
 *
 * ## Example
 * ```ts
 * dialectError('moonshot', 429, { retryAfter: 1 }).body;
 * // {"error":{"message":"Your account request reached organization max RPM: 3, please try again after 1 seconds","type":"rate_limit_reached_error"}}
 * ```
 *
 * @param dialect - The provider imitated.
 * @param status - The HTTP status (4xx/5xx).
 * @param config - Overrides and wait hints.
 * @returns Status, headers and body.
 */
export function dialectError(
  dialect: EmulatorDialect,
  status: number,
  config: DialectErrorConfig = {},
): DialectErrorResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (dialect === 'moonshot') {
    const [message, type] = MOONSHOT[status] ?? neutral(status);
    const typed = config.type === undefined ? undefined : MOONSHOT_TYPE_MESSAGES[config.type];
    const text = config.message ?? typed ?? message;
    const body =
      config.retryAfter === undefined
        ? text
        : `${text.endsWith(LATER) ? text.slice(0, -LATER.length) : text}, please try again after ${config.retryAfter} seconds`;
    return { status, headers, body: JSON.stringify({ error: { message: body, type: config.type ?? type } }) };
  }
  const [message, type, code] = DEEPSEEK[status] ?? [...neutral(status), null];
  if (dialect === 'openai') {
    if (config.retryAfter !== undefined) headers['retry-after'] = String(config.retryAfter);
    if (config.retryAfterMs !== undefined) headers['retry-after-ms'] = String(config.retryAfterMs);
  }
  const error = { message: config.message ?? message, type: config.type ?? type, param: null, code: config.code ?? code };
  return { status, headers, body: JSON.stringify({ error }) };
}
