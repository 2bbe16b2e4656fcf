/**
 * The order in which a cut answer looks for a target (a continuation, a restart): the targets after the one that cut
 * first (it is suspect), then the same one, then the earlier ones.
 *
 * @param cut - The index of the target that cut (`-1` or out of range: the first target).
 * @param count - How many targets the route has.
 * @returns Every index from 0 to `count - 1`, once, in that order.
 */
export function targetsAfter(cut: number, count: number): number[] {
  const at = cut >= 0 && cut < count ? cut : 0;
  const all = Array.from({ length: count }, (_, i) => i);
  return [...all.slice(at + 1), at, ...all.slice(0, at)];
}
