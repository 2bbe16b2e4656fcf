/** A seeded 32-bit PRNG (mulberry32): the same seed gives the same workloads on every machine. */
export function createPrng(seed: number): { next(): number; int(min: number, max: number): number } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** An integer in [min, max], both inclusive. */
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return { next, int };
}
