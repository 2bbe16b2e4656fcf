/**
 * The text of a chat message's `content`: a string as it is, the `text` of each part of an array joined, else `''`.
 * What the emulator counts as the prompt and takes as an assistant prefix.
 *
 * @param content - A message's `content`, of any shape.
 * @returns Its text.
 */
export function messageText(content: unknown): string {
  return typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: unknown } | null) => (typeof part?.text === 'string' ? part.text : '')).join('')
      : '';
}
