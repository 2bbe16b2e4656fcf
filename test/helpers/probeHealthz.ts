import { rawRequest } from './rawRequest';

/** A running {@link probeHealthz}. */
export interface HealthzProbe {
  /** Each probe's round trip, in ms. */
  readonly timings: number[];
  /** Resolves once `stopped()` was seen (after the probe in flight). */
  readonly done: Promise<void>;
}

/**
 * Asks `GET ${url}/healthz` every 200 ms until `stopped()` is true, asserting each answer is 200 (10 s timeout each)
 * and keeping its round trip.
 */
export function probeHealthz(url: string, stopped: () => boolean): HealthzProbe {
  const timings: number[] = [];
  const done = (async () => {
    while (!stopped()) {
      const started = performance.now();
      const res = await rawRequest(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
      expect(res.status).toBe(200);
      timings.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return { timings, done };
}
