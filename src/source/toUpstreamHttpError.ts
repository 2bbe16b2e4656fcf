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
 * `retry-after-ms`, `Retry-After` or Moonshot's "try again after N seconds" text. Secrets are scrubbed from every
 * field (message, type, code, body) before any of them is truncated.
 */
export function toUpstreamHttpError(
  response: UpstreamHttpResponse,
  secrets: readonly string[] = [],
  now?: number,
): UpstreamHttpError {
  const parsed = parseErrorBody(response.body);
  const isHtml = /^\s*</.test(response.body);
  // Every field redacted before it is cut: a cut first can leave most of a key that no rule recognises any more.
  const redacted = redactSecrets(response.body.trim(), secrets);
  const bodyText = truncate(redacted, 1000);
  const detail =
    parsed?.message ??
    (isHtml ? (/<title>([^<]*)<\/title>/i.exec(response.body)?.[1]?.trim() ?? 'an HTML page') : truncate(redacted, 200));
  const message = redactSecrets(`upstream answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`, secrets);
  const type = parsed?.type === undefined ? undefined : truncate(redactSecrets(parsed.type, secrets), 200);
  const code = parsed?.code === undefined ? undefined : truncate(redactSecrets(parsed.code, secrets), 200);
  const retryAfterMs = parseRetryAfter({
    retryAfterMs: first(response.headers['retry-after-ms']),
    retryAfter: first(response.headers['retry-after']),
    message: parsed?.message,
    ...(now === undefined ? {} : { now }),
  });
  return new UpstreamHttpError(response.status, message, {
    ...(type === undefined ? {} : { upstreamType: type }),
    ...(code === undefined ? {} : { upstreamCode: code }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(bodyText === '' ? {} : { body: bodyText }),
  });
}
