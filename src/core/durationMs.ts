import { ConfigError } from './errors.js';

/** The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days): a longer one, `Infinity` too, fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration option in milliseconds, checked once where the options are read (the serving core's, a client's
 * `timeouts`, a route's): `undefined` is its default; `0`, `Infinity` or more than a timer can wait is `0` (none: a
 * timer of `Infinity` would fire after 1 ms); any other number ≥ 0 is itself.
 *
 * @param name - How the caller names the option in its error (e.g. ``createChatClient: `timeouts.idle` ``).
 * @param value - The option as given.
 * @param fallback - Its default.
 * @returns The duration in ms, `0` for none.
 * @throws ConfigError naming the option for anything else (a negative number, `NaN`, not a number).
 */
export function durationMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0)) {
    throw new ConfigError(`${name} must be a number of ms ≥ 0 (0 or Infinity: none), got ${String(value)}; omit it for the default.`);
  }
  return value > MAX_TIMER_MS ? 0 : value;
}
