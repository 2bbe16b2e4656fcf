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
  /** Wait hint in seconds (Moonshot: into the message; openai: `Retry-After`; DeepSeek: ignored). */
  retryAfter?: number;
  /** Wait hint in ms (openai: `retry-after-ms`). */
  retryAfterMs?: number;
}

const DEEPSEEK: Record<number, [string, string, string]> = {
  400: ['Invalid request: the request body is not in a valid format', 'invalid_request_error', 'invalid_request_error'],
  401: ['Authentication Fails, Your api key is invalid', 'authentication_error', 'invalid_request_error'],
  402: ['Insufficient Balance', 'unknown_error', 'invalid_request_error'],
  422: ['Invalid parameters', 'invalid_request_error', 'invalid_request_error'],
  429: ['Rate limit reached for requests', 'rate_limit_error', 'rate_limit_exceeded'],
  500: ['Internal server error', 'api_error', 'internal_error'],
  503: ['Service is too busy, please try again later', 'service_unavailable_error', 'server_overloaded'],
};

const MOONSHOT: Record<number, [string, string]> = {
  400: ['Invalid request: the request body is not in a valid format', 'invalid_request_error'],
  401: ['Invalid Authentication', 'invalid_authentication_error'],
  403: ['Your account is not permitted to access this resource', 'permission_denied_error'],
  404: ['Not found the model or Permission denied', 'resource_not_found_error'],
  429: ['Your account request reached organization max RPM: 3', 'rate_limit_reached_error'],
  500: ['Internal server error', 'server_error'],
  503: ['The engine is currently overloaded, please try again later', 'engine_overloaded_error'],
};

/**
 * The error response of a provider for a status, in its dialect (PROVIDERS.md "Errors").
 *
 * 1. DeepSeek and openai: `{"error":{"message","type","param":null,"code"}}`; Moonshot: `{"error":{"message","type"}}`
 *    with Moonshot's types (`invalid_authentication_error`, `rate_limit_reached_error`, `engine_overloaded_error`, …).
 * 2. Neither DeepSeek nor Moonshot sends `Retry-After`; Moonshot writes "please try again after N seconds" into the
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
    const [message, type] = MOONSHOT[status] ?? (status >= 500 ? MOONSHOT[500]! : MOONSHOT[400]!);
    const text = config.message ?? message;
    const wait = config.retryAfter !== undefined ? `, please try again after ${config.retryAfter} seconds` : '';
    return { status, headers, body: JSON.stringify({ error: { message: text + wait, type: config.type ?? type } }) };
  }
  const [message, type, code] = DEEPSEEK[status] ?? (status >= 500 ? DEEPSEEK[500]! : DEEPSEEK[400]!);
  if (dialect === 'openai') {
    if (config.retryAfter !== undefined) headers['retry-after'] = String(config.retryAfter);
    if (config.retryAfterMs !== undefined) headers['retry-after-ms'] = String(config.retryAfterMs);
  }
  const error = { message: config.message ?? message, type: config.type ?? type, param: null, code };
  return { status, headers, body: JSON.stringify({ error }) };
}
