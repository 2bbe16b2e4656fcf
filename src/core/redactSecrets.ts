/**
 * Patterns of things that must never leave the process: bearer tokens and provider API keys
 * (`sk-…`, long opaque tokens after `key=`/`api_key:`), in any text we pass on.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]{4,}/gi,
  /\bsk-[A-Za-z0-9_*-]{6,}/g,
  // The credential after a key name; after `authorization` its scheme word too (`Basic …`, `Token …`).
  /\b((?:api[_-]?key|apikey|access[_-]?token|authorization|x-api-key)["']?\s*[:=]\s*["']?)(?:[A-Za-z]+\s+)?[^\s"',;&}]{4,}/gi,
  // A `token` query parameter in a URL (the short-lived `GET /chat/sse?token=…` ones included).
  /([?&]token=)[^&#\s"']+/gi,
];

/** The shortest start of a known secret that is redacted at the very end of a text (a text cut by a size limit). */
const MIN_CUT_PREFIX = 6;

/**
 * Replaces everything shaped like a secret in `text` with `[redacted]`, and every literal secret in `known`
 * (configured keys), whatever its shape.
 *
 * 1. Known secrets are replaced longest first, so a short secret inside a longer one leaves nothing of it behind.
 * 2. A text that ends with the first characters (at least 6) of a known secret — an upstream body cut by a reader's
 *    size or time limit in the middle of a quoted key — has that start replaced too.
 * 3. Redact first, truncate after: a cut made before redacting can leave a start of a key that no rule recognises.
 *
 * @param text - Any text that may reach a client or a log line.
 * @param known - Exact secrets to remove (API keys, gateway keys); strings shorter than 4 characters are ignored.
 * @returns The text with secrets replaced.
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  const secrets = known.filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  for (const secret of secrets) {
    for (let length = secret.length - 1; length >= MIN_CUT_PREFIX; length--) {
      if (out.endsWith(secret.slice(0, length))) {
        out = `${out.slice(0, out.length - length)}[redacted]`;
        break;
      }
    }
  }
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match, prefix: unknown) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}[redacted]` : match.replace(/\S+$/, '[redacted]'),
    );
  }
  return out;
}
