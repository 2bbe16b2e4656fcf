import { UpstreamHttpError } from '../core/errors.js';
import { parseErrorBody } from './parseErrorBody.js';
import { parseRetryAfter } from './parseRetryAfter.js';
import { redactSecrets } from '../core/redactSecrets.js';
import { truncate } from '../core/truncate.js';

/** The parts of a non-2xx response {@link toUpstreamHttpError} reads. */
export interface UpstreamHttpResponse {
  status: number;
  /** Lower-cased header names (undici's `headers`). */
  headers: Record<string, string | string[] | undefined>;
  /** The body as text (already bounded by the reader). */
  body: string;
}

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * Builds the {@link UpstreamHttpError} of a non-2xx answer: the status, the provider's message/type/code when the
 * body is a JSON error, else a truncated snippet of the body (an HTML page from a proxy), and the retry hint from
 * `retry-after-ms`, `Retry-After` or Moonshot's "try again after N seconds" text. Secrets are scrubbed.
 */
export function toUpstreamHttpError(
  response: UpstreamHttpResponse,
  secrets: readonly string[] = [],
  now?: number,
): UpstreamHttpError {
  const parsed = parseErrorBody(response.body);
  const isHtml = /^\s*</.test(response.body);
  const bodyText = redactSecrets(truncate(response.body.trim(), 1000), secrets);
  const detail =
    parsed?.message ??
    (isHtml
      ? (/<title>([^<]*)<\/title>/i.exec(response.body)?.[1]?.trim() ?? 'an HTML page')
      : truncate(response.body.trim(), 200));
  const message = redactSecrets(`upstream answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`, secrets);
  const retryAfterMs = parseRetryAfter({
    retryAfterMs: first(response.headers['retry-after-ms']),
    retryAfter: first(response.headers['retry-after']),
    message: parsed?.message,
    ...(now === undefined ? {} : { now }),
  });
  return new UpstreamHttpError(response.status, message, {
    ...(parsed?.type === undefined ? {} : { upstreamType: parsed.type }),
    ...(parsed?.code === undefined ? {} : { upstreamCode: parsed.code }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(bodyText === '' ? {} : { body: bodyText }),
  });
}
