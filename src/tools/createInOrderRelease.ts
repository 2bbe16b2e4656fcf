/** Holds values that arrive in any order and releases them in the order of their positions. */
export interface InOrderRelease<T> {
  /** Takes the value of position `at` (each position once); returns the values now releasable, in order. */
  put(at: number, value: T): readonly T[];
}

/**
 * Creates an {@link InOrderRelease}: position 0 is released as soon as it arrives, any later one as soon as every
 * position before it was released. What keeps a step's tool results in the order the model made the calls while the
 * calls run in parallel and finish in any order. O(1) per value besides the values released.
 */
export function createInOrderRelease<T>(): InOrderRelease<T> {
  const held = new Map<number, T>();
  let next = 0;
  return {
    put(at, value) {
      held.set(at, value);
      const out: T[] = [];
      while (held.has(next)) {
        out.push(held.get(next) as T);
        held.delete(next++);
      }
      return out;
    },
  };
}
