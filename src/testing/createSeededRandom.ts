/** A deterministic pseudo-random sequence (mulberry32): the same seed always gives the same numbers. */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
}

/**
 * Creates a {@link SeededRandom} (mulberry32, period 2^32): tiny, fast, and identical on every platform.
 *
 * ## Example
 * ```ts
 * const rng = createSeededRandom(42);
 * rng.int(10); // always the same value for seed 42
 * ```
 *
 * @param seed - Any integer; only its low 32 bits are used.
 * @returns A fresh sequence.
 */
export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (maxExclusive: number): number => Math.floor(next() * maxExclusive);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)] as T,
    hex: (length: number) => {
      let out = '';
      while (out.length < length) out += int(16).toString(16);
      return out;
    },
  };
}
