/**
 * Patterns of things that must never leave the process: bearer tokens and provider API keys
 * (`sk-…`, long opaque tokens after `key=`/`api_key:`), in any text we pass on.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]{4,}/gi,
  /\bsk-[A-Za-z0-9_*-]{6,}/g,
  // The credential after a key name; after `authorization` its scheme word too (`Basic …`, `Token …`).
  /\b((?:api[_-]?key|apikey|access[_-]?token|authorization|x-api-key)["']?\s*[:=]\s*["']?)(?:[A-Za-z]+\s+)?[^\s"',;&}]{4,}/gi,
];

/**
 * Replaces everything shaped like a secret in `text` with `[redacted]`, and every literal secret in `known`
 * (configured keys), whatever its shape.
 *
 * @param text - Any text that may reach a client or a log line.
 * @param known - Exact secrets to remove (API keys, gateway keys); empty strings are ignored.
 * @returns The text with secrets replaced.
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const secret of known) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match, prefix: unknown) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}[redacted]` : match.replace(/\S+$/, '[redacted]'),
    );
  }
  return out;
}
