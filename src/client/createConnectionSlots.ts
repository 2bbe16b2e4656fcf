/** The client's upstream connections as slots, taken in arrival order; see {@link createConnectionSlots}. */
export interface ConnectionSlots {
  /**
   * Takes a slot: `onSlot(release)` is called at once when one is free, else when one frees up (first come, first
   * served); `onTimeout()` when none freed up within the wait. Returns a cancel function (leaves the queue; does not
   * release a slot already given — call `release` for that, once).
   */
  take(onSlot: (release: () => void) => void, onTimeout: () => void): () => void;
  /** Slots in use now. */
  readonly inUse: number;
  /** Takers waiting for a slot now. */
  readonly waiting: number;
}

interface Waiter {
  onSlot: (release: () => void) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Creates `size` slots, one per upstream connection of a client's own pool, so that a request finds out how long it
 * waits for a connection instead of queueing silently inside undici: past `waitMs` the taker is told (`onTimeout`)
 * and leaves the queue. `waitMs` `Infinity` waits as long as it takes; `0` never waits.
 *
 * @param size - The number of slots (the pool's `connections`).
 * @param waitMs - The longest wait for a slot, in ms.
 */
export function createConnectionSlots(size: number, waitMs: number): ConnectionSlots {
  let inUse = 0;
  const queue = new Set<Waiter>(); // insertion-ordered: first come, first served; O(1) removal on cancel

  const grant = (onSlot: (release: () => void) => void): void => {
    inUse += 1;
    let released = false;
    onSlot(() => {
      if (released) return;
      released = true;
      inUse -= 1;
      const next = queue.values().next();
      if (next.done === true) return;
      queue.delete(next.value);
      clearTimeout(next.value.timer);
      grant(next.value.onSlot);
    });
  };

  return {
    take(onSlot, onTimeout) {
      if (inUse < size && queue.size === 0) {
        grant(onSlot);
        return () => undefined;
      }
      if (waitMs <= 0) {
        onTimeout();
        return () => undefined;
      }
      const waiter: Waiter = { onSlot, timer: undefined };
      if (waitMs !== Infinity) {
        waiter.timer = setTimeout(() => {
          queue.delete(waiter);
          onTimeout();
        }, waitMs);
      }
      queue.add(waiter);
      return () => {
        if (!queue.delete(waiter)) return;
        clearTimeout(waiter.timer);
      };
    },
    get inUse() {
      return inUse;
    },
    get waiting() {
      return queue.size;
    },
  };
}
