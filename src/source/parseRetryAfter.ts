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

// RFC 9110 §5.6.7: the three HTTP-date shapes. Anything else (V8's Date.parse reads "later 2" as a date) is no hint.
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`, 'i');
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete) */
const RFC_850 = new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`, 'i');
/** `Sun Nov  6 08:49:37 1994` (obsolete; UTC though it says no zone) */
const ASCTIME = new RegExp(`^${DAY} ${MONTH} (?:\\d{2}| \\d) ${TIME} \\d{4}$`, 'i');

const parseHttpDate = (value: string): number => {
  if (IMF_FIXDATE.test(value) || RFC_850.test(value)) return Date.parse(value);
  if (ASCTIME.test(value)) return Date.parse(`${value} GMT`);
  return Number.NaN;
};

/**
 * The wait a provider asked for, in milliseconds, or `undefined` when it gave none (or gave garbage).
 *
 * Precedence: `retry-after-ms`, then `Retry-After` (delta-seconds, or an HTTP-date in one of RFC 9110's three shapes —
 * IMF-fixdate, RFC 850, asctime; a date in the past means 0), then the "try again after N seconds" text of the
 * message. Negative and non-finite values, and dates in any other shape, are ignored.
 */
export function parseRetryAfter(input: RetryAfterInput): number | undefined {
  const ms = input.retryAfterMs?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const header = input.retryAfter?.trim();
  if (header !== undefined && header !== '') {
    if (/^\d+(\.\d+)?$/.test(header)) return Math.ceil(Number(header) * 1000);
    const date = parseHttpDate(header);
    if (!Number.isNaN(date)) return Math.max(0, date - (input.now ?? Date.now()));
  }
  const match = input.message === undefined ? null : MESSAGE_HINT.exec(input.message);
  if (match?.[1] !== undefined && match[2] !== undefined) {
    const unit = match[2].toLowerCase();
    const factor = unit.startsWith('ms') || unit.startsWith('milli') ? 1 : unit.startsWith('m') ? 60_000 : 1000;
    return Math.ceil(Number(match[1]) * factor);
  }
  return undefined;
}
