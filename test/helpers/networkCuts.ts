import fc from 'fast-check';

/**
 * Random cuts of `bytes` as the network may deliver them (fast-check picks up to 12 cut points in `0 … length`;
 * pieces may be empty, as a read of no bytes is): the pieces, in order, whose concatenation is `bytes`.
 *
 * @param bytes - The whole body.
 * @returns An arbitrary of its pieces.
 */
export function networkCuts(bytes: Uint8Array): fc.Arbitrary<Uint8Array[]> {
  return fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }).map((points) => {
    const at = [0, ...[...new Set(points)].sort((a, b) => a - b), bytes.length];
    return at.slice(1).map((end, i) => bytes.subarray(at[i], end));
  });
}
