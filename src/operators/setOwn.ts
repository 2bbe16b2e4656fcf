/**
 * `target[key] = value` as an own, enumerable data property — also for the key `__proto__`, which plain assignment
 * would turn into a prototype change (JSON from upstream can carry that key: `{"__proto__":{…}}`).
 *
 * @param target - The object to write to.
 * @param key - The property name.
 * @param value - The value.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
