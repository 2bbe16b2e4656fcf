import { createSeededRandom } from '../../src/testing/createSeededRandom.js';

/** The seeded PRNG of chatflux's emulator (mulberry32): the same seed gives the same workloads on every machine. */
export function createPrng(seed: number): { next(): number; int(min: number, max: number): number } {
  const random = createSeededRandom(seed);
  /** An integer in [min, max], both inclusive. */
  const int = (min: number, max: number): number => min + random.int(max - min + 1);
  return { next: random.next, int };
}
