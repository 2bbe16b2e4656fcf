import { createHash } from 'node:crypto';

const hashes = (page: string, tag: 'script' | 'style'): string[] =>
  [...page.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map(
    (match) => `'sha256-${createHash('sha256').update(match[1] ?? '').digest('base64')}'`,
  );

/**
 * The security headers of the gateway's demo page: a Content-Security-Policy allowing only the page's own inline
 * script and style (by their SHA-256, computed from the page) and requests to its own origin, with
 * `frame-ancestors 'none'` (no other site may frame it: no clickjacking of its Send button); `X-Frame-Options: DENY`
 * for older browsers; `X-Content-Type-Options: nosniff`; `Referrer-Policy: no-referrer`.
 *
 * @param page - The page's HTML, as served.
 * @returns The headers to set on it.
 */
export function pageSecurityHeaders(page: string): Record<string, string> {
  const csp = [
    "default-src 'none'",
    `script-src ${hashes(page, 'script').join(' ')}`,
    `style-src ${hashes(page, 'style').join(' ')}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}
