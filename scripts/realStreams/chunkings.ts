import { createSeededRandom } from '../../src/testing/createSeededRandom';

/** A way of cutting a stream's bytes into the pieces a network read would deliver. */
export interface Chunking {
  /** How it cuts, for the report (`whole`, `1 byte`, `random ≤16 (seed 7)`, …). */
  name: string;
  /** The pieces, in order; joined they are the input. */
  cut(bytes: Uint8Array): Uint8Array[];
}

const bySize = (size: number): Chunking => ({
  name: size === 1 ? '1 byte' : `${size} bytes`,
  cut: (bytes) => {
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
    return pieces;
  },
});

const random = (max: number, seed: number): Chunking => ({
  name: `random 1–${max} bytes (seed ${seed})`,
  cut: (bytes) => {
    const rng = createSeededRandom(seed);
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < bytes.length;) {
      const size = 1 + rng.int(max);
      pieces.push(bytes.subarray(at, at + size));
      at += size;
    }
    return pieces;
  },
});

const perLine: Chunking = {
  name: 'per line',
  cut: (bytes) => {
    const pieces: Uint8Array[] = [];
    let start = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] !== 0x0a) continue;
      pieces.push(bytes.subarray(start, i + 1));
      start = i + 1;
    }
    if (start < bytes.length) pieces.push(bytes.subarray(start));
    return pieces;
  },
};

/**
 * The chunkings every corpus file goes through: whole, one byte at a time (inside every multi-byte character and
 * between every CR and LF), small and larger random splits from fixed seeds, and one piece per line.
 */
export const CHUNKINGS: readonly Chunking[] = [
  { name: 'whole', cut: (bytes) => [bytes] },
  bySize(1),
  random(16, 7),
  random(200, 20260101),
  perLine,
];
