import { isAbortedError, isCapacityError, isTimeoutError } from '../core/errors.js';
import { isContentPolicyError } from '../core/isContentPolicyError.js';
import { isContextLengthError } from '../core/isContextLengthError.js';
import { isTargetFault } from './isTargetFault.js';

/** The switches of {@link nextRouteTarget}. */
export interface NextRouteTargetRules {
  /** A silent target (`headers` / `first_chunk` timeout) hands over. */
  silence: boolean;
  /** A content-policy rejection hands over. */
  contentPolicy: boolean;
}

/**
 * A route's failover rule: where a request goes after target `index` failed before its first chunk.
 *
 * | error | next |
 * |---|---|
 * | content-policy rejection | stop (`rules.contentPolicy`: the next target) |
 * | `context_length_exceeded` | the next target whose `contextWindow` is larger than this one's (stop if none) |
 * | `headers` / `first_chunk` timeout | the next target (`rules.silence` false: stop) |
 * | any other target fault (`isTargetFault`), `upstream_busy` | the next target |
 * | anything else (400, 422, abort, invalid request) | stop |
 *
 * @param error - The failure.
 * @param index - The target that failed.
 * @param windows - Each target's declared context window (`undefined`: unknown).
 * @param rules - The switches.
 * @returns The next target's index, or `undefined` to surface the error.
 */
export function nextRouteTarget(
  error: unknown,
  index: number,
  windows: readonly (number | undefined)[],
  rules: NextRouteTargetRules,
): number | undefined {
  if (isAbortedError(error)) return undefined;
  if (isContentPolicyError(error)) return rules.contentPolicy ? index + 1 : undefined;
  if (isContextLengthError(error)) {
    const mine = windows[index] ?? 0;
    const larger = windows.findIndex((w, i) => i > index && w !== undefined && w > mine);
    return larger === -1 ? undefined : larger;
  }
  if (isTimeoutError(error) && (error.phase === 'headers' || error.phase === 'first_chunk')) return rules.silence ? index + 1 : undefined;
  if (isTargetFault(error) || (isCapacityError(error) && error.code === 'upstream_busy')) return index + 1;
  return undefined;
}
