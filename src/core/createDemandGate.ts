/**
 * The demand signal between a sink (an HTTP response) and a source (the upstream body).
 *
 * The sink closes the gate when its writable is full (`res.write()` returned `false`) and opens it on `'drain'`
 * — and on `'close'`, so that no reader waits forever. The source (`fromBody`, `requestCompletion`) reads the next
 * chunk only while the gate is open, so a slow client stops the reading of the upstream socket and TCP pauses the
 * provider: memory stays bounded, whatever the length of the answer.
 */
export interface DemandGate {
  /** True while the sink wants more. */
  readonly isOpen: boolean;
  /** Stop demand: the source finishes the chunk in hand and waits. */
  pause(): void;
  /** Restore demand: a waiting source reads on. */
  resume(): void;
  /** Resolves when the gate is open (at once when it already is). */
  whenOpen(): Promise<void>;
}

/**
 * Creates an open {@link DemandGate}.
 *
 * ## Example
 * ```ts
 * const demand = createDemandGate();
 * client.sse(request, { demand }).pipe(toSse()).subscribe((text) => {
 *   if (!res.write(text)) { demand.pause(); res.once('drain', () => demand.resume()); }
 * });
 * ```
 */
export function createDemandGate(): DemandGate {
  let waiters: Array<() => void> = [];
  let isOpen = true;
  return {
    get isOpen() {
      return isOpen;
    },
    pause() {
      isOpen = false;
    },
    resume() {
      isOpen = true;
      const ready = waiters;
      waiters = [];
      for (const wake of ready) wake();
    },
    whenOpen() {
      return isOpen ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
