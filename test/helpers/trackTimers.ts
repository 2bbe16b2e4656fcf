import { createHook } from 'node:async_hooks';

/** The timers (`setTimeout`/`setInterval`, unref'd ones too) created since {@link trackTimers} and not yet cleared or run. */
export interface TimerTracker {
  /** How many are still pending. */
  pending(): number;
  /** Stops tracking. */
  stop(): void;
  /** Where the pending ones were created (stack traces), for a failure's message. */
  origins(): string[];
}

/**
 * Tracks every timer created from now on through async_hooks (`Timeout` resources: destroyed when cleared or run), so a
 * test can see that a component leaves none behind — unref'd timers included, which `getActiveResourcesInfo` omits.
 */
export function trackTimers(): TimerTracker {
  const live = new Map<number, string>();
  const hook = createHook({
    init(asyncId, type) {
      if (type === 'Timeout') live.set(asyncId, new Error('timer created').stack ?? '');
    },
    destroy(asyncId) {
      live.delete(asyncId);
    },
  }).enable();
  return { pending: () => live.size, stop: () => hook.disable(), origins: () => [...live.values()] };
}
