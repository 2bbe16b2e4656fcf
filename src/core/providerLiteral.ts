/**
 * `JSON.stringify` of a string, taken from the provider's own bytes when they are already its text: the chunk
 * scanner (`decodeChunk`'s fast path) remembers the last delta text it read whose literal in the event is
 * byte-identical to what `JSON.stringify` writes for it, and the frame templates (`stringifyCompletionChunk`,
 * `stringifyValue`) splice that literal in place of a second walk of the string.
 *
 * ```text
 * provider:   …"delta":{"content":"Hi \"you\"\n"}…      the scanner reads the text, and remembers its literal
 * the wire:   …"delta":{"content":"Hi \"you\"\n"}…      json(text): the literal, no JSON.stringify
 * provider:   …"content":"caf\u00e9 a\/b"…               not JSON.stringify's escapes: nothing remembered
 * the wire:   …"content":"café a/b"…                     json(text): JSON.stringify(text)
 * ```
 *
 * Keyed by the text itself, not by where it came from: `JSON.stringify(s)` depends only on the characters of `s`, so
 * whatever the operators between the scanner and the wire do (copy, concatenate, redact, reorder, fail over), a text
 * equal to the remembered one has the remembered literal, and any other text is `JSON.stringify`'s. The text the
 * scanner hands on is the very string the contract chunk and the `/v1` chunk carry (`'' + s` is `s`), so the check
 * is a pointer compare when it hits, and a length compare when it does not. One entry for the process (the writer
 * runs in the same call as the scan, chunk by chunk), so nothing grows: at most one text and one literal held — the
 * literal of a long escaped text is a slice of the event it was read from.
 *
 * Internal: not part of the public surface; nothing about a chunk or its JSON changes.
 */
export const providerLiteral = {
  /**
   * Remembers `literal` as `JSON.stringify(text)`. The caller (the scanner) vouches for it: `undefined` stands for
   * `"${text}"` (a literal without a backslash, a control character or a surrogate).
   *
   * @param text - The string a literal was read as.
   * @param literal - Its literal, byte-identical to `JSON.stringify(text)`; `undefined` when that is `"${text}"`.
   */
  remember(text: string, literal: string | undefined): void {
    lastText = text;
    lastLiteral = literal;
  },
  /**
   * `JSON.stringify(text)`: the remembered literal when `text` is the remembered text.
   *
   * @param text - Any string.
   * @returns Its JSON text.
   */
  json(text: string): string {
    if (text !== lastText) return JSON.stringify(text);
    return lastLiteral !== undefined ? lastLiteral : `"${text}"`;
  },
  /**
   * Whether {@link providerLiteral.json} would splice the remembered literal for `text` (for tests and the corpus
   * check of `scripts/real-streams-wires.ts`).
   *
   * @param text - Any string.
   * @returns True when `text` is the remembered text.
   */
  holds(text: string): boolean {
    return lastText !== undefined && text === lastText;
  },
};

let lastText: string | undefined;
let lastLiteral: string | undefined;
