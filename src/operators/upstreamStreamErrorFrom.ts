import { UpstreamStreamError } from '../core/errors.js';
import { redactSecrets } from '../core/redactSecrets.js';
import { truncate } from '../core/truncate.js';

/**
 * Builds the {@link UpstreamStreamError} for an in-band provider error: the data of an `event: error` frame, or a
 * payload `{"error": …}`. Understands `{"error":{message,type,code}}`, `{message,type,code}`, `{"error":"text"}` and
 * plain text; the message is redacted (no keys leak) and truncated.
 *
 * @param body - The parsed JSON (the `error` member's parent), or `undefined` when the data was not JSON.
 * @param raw - The event's data text, used when the body has no message.
 * @param secrets - Literal secrets to remove as well (the client's API key, whatever its shape).
 * @returns The error to raise.
 */
export function upstreamStreamErrorFrom(
  body: unknown,
  raw: string,
  secrets: readonly string[] = [],
): UpstreamStreamError {
  let detail: unknown = body;
  if (isObject(body) && body.error !== undefined && body.error !== null) detail = body.error;
  let message: string | undefined;
  let type: string | undefined;
  let code: string | undefined;
  if (typeof detail === 'string') message = detail;
  else if (isObject(detail)) {
    if (typeof detail.message === 'string') message = detail.message;
    if (typeof detail.type === 'string') type = detail.type;
    if (typeof detail.code === 'string' || typeof detail.code === 'number') code = String(detail.code);
  }
  // Redact before truncating: a cut could leave a secret's prefix that no longer matches.
  const text = truncate(redactSecrets(message ?? (raw.trim() === '' ? 'unknown upstream error' : raw), secrets), 1000);
  const options: { upstreamType?: string; upstreamCode?: string } = {};
  if (type !== undefined) options.upstreamType = truncate(redactSecrets(type, secrets), 200);
  if (code !== undefined) options.upstreamCode = truncate(redactSecrets(code, secrets), 200);
  return new UpstreamStreamError(text, options);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
