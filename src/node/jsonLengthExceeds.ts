/**
 * Whether `value` written as JSON (compact, UTF-8) would take more than `max` bytes — measured by walking it, and
 * stopping as soon as the count passes `max`, so the cost is bounded by `max`, not by the value (a body another parser
 * read under a larger limit). Escapes are not counted: the count is a lower bound, so a value within `max` is never
 * refused.
 *
 * @param value - A parsed JSON value.
 * @param max - The limit, in bytes.
 * @returns True when the value's JSON is longer than `max`.
 */
export function jsonLengthExceeds(value: unknown, max: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') total += Buffer.byteLength(item, 'utf8') + 2;
    else if (typeof item === 'number' || typeof item === 'boolean' || item === null) total += String(item).length;
    else if (Array.isArray(item)) {
      total += 2 + Math.max(0, item.length - 1);
      for (const element of item as unknown[]) stack.push(element);
    } else if (typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>);
      total += 2 + Math.max(0, entries.length - 1);
      for (const [key, element] of entries) {
        total += Buffer.byteLength(key, 'utf8') + 3;
        stack.push(element);
      }
    }
    if (total > max) return true;
  }
  return false;
}
