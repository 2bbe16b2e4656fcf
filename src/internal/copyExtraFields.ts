import { frozenCopy } from './frozenCopy.js';

/**
 * Copies (deeply frozen) the fields of `from` whose key is not in `known` and whose value is not `undefined` into the
 * object `into()` returns (called only when there is something to copy). Returns true if any field was copied.
 * Cost: proportional to the size of `from`.
 */
export function copyExtraFields(
  from: object,
  known: ReadonlySet<string>,
  into: () => Record<string, unknown>,
): boolean {
  let copied = false;
  for (const key of Object.keys(from)) {
    const value = (from as Record<string, unknown>)[key];
    if (known.has(key) || value === undefined) continue;
    into()[key] = frozenCopy(value);
    copied = true;
  }
  return copied;
}
