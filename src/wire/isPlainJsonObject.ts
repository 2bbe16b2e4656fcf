/**
 * Whether `JSON.stringify` writes `value` as an object of exactly the own enumerable keys a `for…in` walk meets: an
 * ordinary object (its prototype `Object.prototype` or `null`) without `toJSON` (own or inherited). An array (written
 * as its elements), a boxed primitive (as its value), a `Date`, a class instance… are not: the wire templates
 * (`stringifyValue`, `stringifyCompletionChunk`) leave those to `JSON.stringify`.
 *
 * @param value - Any value.
 * @returns Whether the templates may read `value` as a plain JSON object.
 */
export function isPlainJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && (value as { toJSON?: unknown }).toJSON === undefined;
}
