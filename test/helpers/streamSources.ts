import { Observable } from 'rxjs';
import type { DemandGate } from '../../src/core/createDemandGate';

/** A chunk of the contract with `index` and `done` as given. */
export const chunk = (index: number, content: string, done = false): Record<string, unknown> => ({
  message: { role: 'assistant', content },
  done,
  index,
});

/** An endless source that emits `piece` whenever `demand` is open (as the upstream reader does); counts emissions. */
export function demandDrivenSource(demand: DemandGate, piece: unknown): { source: Observable<unknown>; produced: () => number; stopped: () => boolean } {
  let produced = 0;
  let stopped = false;
  const source = new Observable<unknown>((subscriber) => {
    let active = true;
    void (async () => {
      while (active) {
        await demand.whenOpen();
        if (!active) break;
        produced += 1;
        subscriber.next(piece);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    return () => {
      active = false;
      stopped = true;
    };
  });
  return { source, produced: () => produced, stopped: () => stopped };
}

/** Polls `condition` every 5 ms until it holds (rejects after `timeoutMs`). */
export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
