import { setOwn } from './setOwn.js';

/**
 * A deep copy of a JSON-like value (plain objects, arrays, primitives), frozen at every level, so a value taken from
 * an input chunk can be put in an emitted snapshot without freezing (mutating) the caller's object.
 * An own `__proto__` key (as `JSON.parse` makes) stays an own data property: it never sets the copy's prototype.
 * Cost: proportional to the size of `value`.
 */
export function frozenCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map((item: unknown) => frozenCopy(item))) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, frozenCopy((value as Record<string, unknown>)[key]));
  return Object.freeze(out) as T;
}
