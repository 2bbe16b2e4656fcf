import { frozenCopy } from './frozenCopy.js';
import { setOwn } from './setOwn.js';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Copies (deeply frozen) the own fields of `from` for which `known(key)` is false and whose value is not `undefined` into
 * `into`, created when absent and there is something to copy. Returns the object copied into, or `undefined` if no
 * field was copied (`into` is then untouched).
 * Cost: proportional to the size of `from`; a `for…in` walk with no allocation when every key is known (the hot path).
 */
export function copyExtraFields(
  from: object,
  known: (key: string) => boolean,
  into: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  let copied = false;
  for (const key in from) {
    if (known(key) || !hasOwn.call(from, key)) continue;
    const value = (from as Record<string, unknown>)[key];
    if (value === undefined) continue;
    setOwn((into ??= {}), key, frozenCopy(value));
    copied = true;
  }
  return copied ? into : undefined;
}
