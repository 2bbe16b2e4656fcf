import type { RawResponse } from './rawRequest';

/** The longest wait between two consecutive pieces of a response, in ms (`-Infinity` with fewer than two). */
export function largestPieceGap(response: RawResponse): number {
  const gaps = response.pieces.slice(1).map((piece, i) => piece.at - (response.pieces[i]?.at ?? piece.at));
  return Math.max(...gaps);
}
