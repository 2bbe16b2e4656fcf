import { loadAllowance } from './loadAllowance';
import { referenceWorkMs } from './referenceWorkMs';

/**
 * The most "promptly" or "at once" may take in a test, now, in ms: `floorMs` (the bound on an idle machine, e.g.
 * DESIGN.md's tens of milliseconds for a cancel to reach the upstream, with its margin), or 20 ×
 * {@link referenceWorkMs} measured now, when the machine is busy enough that this is more. A gateway that waits for a
 * timeout, a back-off or the next upstream chunk still fails on an idle machine; a machine busy with other work does
 * not fail a prompt one. Call it after the measured event (it takes some CPU: tens of ms, more on a busy machine), not
 * between its start and its end.
 *
 * @param floorMs - The bound on an idle machine.
 * @returns The bound, in ms.
 */
export function promptBound(floorMs: number): number {
  return loadAllowance(referenceWorkMs(), { factor: 20, floorMs });
}
