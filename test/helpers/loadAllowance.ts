/** Options of {@link loadAllowance}. */
export interface LoadAllowanceConfig {
  /** How many times the baseline the measure may take (generous: a busy machine slows the measure more than its baseline). */
  factor: number;
  /** The bound on an idle machine, which a tiny baseline does not lower: the claim the test makes, with its margin. */
  floorMs: number;
}

/**
 * The most a latency may take in a test on this machine, now: `floorMs` (the bound that holds on an idle machine), or
 * `factor` × a baseline measured in the same test when the machine is busy enough that this is more.
 *
 * A timing assertion with a fixed bound fails on a loaded machine (`npm test` on a laptop doing other things, a CI
 * runner shared with other jobs), although nothing is wrong; with a bound from a baseline taken in the same test —
 * the same quantity without the load under test, or the same path without the fault — it fails only when the measure
 * is out of proportion with what the machine gives right now. It never allows less than the fixed bound did.
 *
 * ```ts
 * const quiet = await measure();           // without the hostile clients
 * const loaded = await measureUnderLoad(); // with them
 * expect(loaded).toBeLessThan(loadAllowance(quiet, { factor: 20, floorMs: 1000 }));
 * ```
 *
 * @param baselineMs - The baseline, in ms (taken in the same test, on the same machine).
 * @param config - The factor, and the floor.
 * @returns The bound, in ms.
 */
export function loadAllowance(baselineMs: number, { factor, floorMs }: LoadAllowanceConfig): number {
  return Math.max(floorMs, factor * baselineMs);
}
