import { RequestError } from './errors.js';
import type { DemandGateConfig } from './DemandGateConfig.js';

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
  /**
   * Adds a listener of the write stall deadline (`DemandGateConfig.stallTimeoutMs`): called once with a
   * `RequestError` `client_stalled` when the gate has stayed closed that long. The writers (`writeResponse`,
   * `toResponse`) listen: they end the response, which aborts the upstream. Optional for gates of your own.
   *
   * @returns A function that removes the listener.
   */
  onStall?(listener: (error: RequestError) => void): () => void;
}

/**
 * Creates an open {@link DemandGate}.
 *
 * With `stallTimeoutMs`, a gate closed (paused) that long without a `resume()` calls its `onStall` listeners once:
 * a client that stops reading cannot hold the request — and its upstream connection — forever.
 *
 * ```text
 * pause() ──── stallTimeoutMs ────► onStall(RequestError client_stalled)
 * pause() ── resume() ──            (cleared: no stall)
 * ```
 *
 * ## Example
 * ```ts
 * const demand = createDemandGate();
 * client.sse(request, { demand }).pipe(toSse()).subscribe((text) => {
 *   if (!res.write(text)) { demand.pause(); res.once('drain', () => demand.resume()); }
 * });
 * ```
 */
export function createDemandGate(config: DemandGateConfig = {}): DemandGate {
  const stallTimeoutMs = config.stallTimeoutMs ?? 0;
  let waiters: Array<() => void> = [];
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  let stalled = false;
  const stallListeners = new Set<(error: RequestError) => void>();
  const onStallTimer = (): void => {
    stallTimer = undefined;
    if (gate.isOpen || stalled) return;
    stalled = true;
    const error = new RequestError(
      'client_stalled',
      `the client read nothing for ${stallTimeoutMs} ms while the response waited to be written; the response was ended`,
    );
    for (const listener of [...stallListeners]) listener(error);
  };
  // `isOpen` is a data property kept current, not a getter: an object literal with a getter gets a hidden class of its
  // own (one per response, ~0.6 KB each), and every `demand.isOpen` read of the process becomes megamorphic.
  const gate: { isOpen: boolean } & Omit<DemandGate, 'isOpen'> = {
    isOpen: true,
    pause() {
      gate.isOpen = false;
      if (stallTimeoutMs > 0 && stallTimer === undefined && !stalled) {
        stallTimer = setTimeout(onStallTimer, stallTimeoutMs);
        stallTimer.unref?.();
      }
    },
    resume() {
      gate.isOpen = true;
      clearTimeout(stallTimer);
      stallTimer = undefined;
      const ready = waiters;
      waiters = [];
      for (const wake of ready) wake();
    },
    whenOpen() {
      return gate.isOpen ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));
    },
    onStall(listener) {
      stallListeners.add(listener);
      return () => void stallListeners.delete(listener);
    },
  };
  return gate;
}
