/**
 * Shortens `text` to at most `max` UTF-16 code units, marking the cut with `…` and the original length, so an
 * offending input can be attached to an error without growing it.
 */
export function truncate(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}
