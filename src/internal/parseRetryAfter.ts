/** Where {@link parseRetryAfter} looks for the provider's wait. */
export interface RetryAfterInput {
  /** The `retry-after-ms` header (milliseconds, OpenAI-style). */
  retryAfterMs?: string | undefined;
  /** The `Retry-After` header: delta-seconds or an HTTP-date (RFC 9110 §10.2.3). */
  retryAfter?: string | undefined;
  /** The provider's error message: Moonshot writes "please try again after 1 seconds". */
  message?: string | undefined;
  /** The current time in ms since the epoch, for an HTTP-date (default `Date.now()`). */
  now?: number;
}

const MESSAGE_HINT = /try again (?:after|in) (\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b/i;

/**
 * The wait a provider asked for, in milliseconds, or `undefined` when it gave none (or gave garbage).
 *
 * Precedence: `retry-after-ms`, then `Retry-After` (seconds or HTTP-date; a date in the past means 0), then the
 * "try again after N seconds" text of the message. Negative and non-finite values are ignored.
 */
export function parseRetryAfter(input: RetryAfterInput): number | undefined {
  const ms = input.retryAfterMs?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const header = input.retryAfter?.trim();
  if (header !== undefined && header !== '') {
    if (/^\d+(\.\d+)?$/.test(header)) return Math.ceil(Number(header) * 1000);
    const date = Date.parse(header);
    if (!Number.isNaN(date) && /[a-z]/i.test(header)) return Math.max(0, date - (input.now ?? Date.now()));
  }
  const match = input.message === undefined ? null : MESSAGE_HINT.exec(input.message);
  if (match?.[1] !== undefined && match[2] !== undefined) {
    const unit = match[2].toLowerCase();
    const factor = unit.startsWith('ms') || unit.startsWith('milli') ? 1 : unit.startsWith('m') ? 60_000 : 1000;
    return Math.ceil(Number(match[1]) * factor);
  }
  return undefined;
}
