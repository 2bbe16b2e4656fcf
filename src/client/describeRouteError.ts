import { isChatfluxError, isTimeoutError, isUpstreamHttpError, isUpstreamStreamError } from '../core/errors.js';

/** How a route's attempt names its error. */
export interface RouteErrorDescription {
  /** The provider's code or type, else chatflux's code (`timeout:first_chunk`, `network`, …). */
  error: string;
  /** The upstream HTTP status, for an HTTP failure. */
  status?: number;
}

/**
 * How a route's attempt names its error: `error` is the provider's code or type when it gave one, else chatflux's
 * code (with the timeout's phase: `timeout:first_chunk`); `status` the upstream HTTP status.
 *
 * @param error - The attempt's error.
 * @returns The fields to add to the attempt.
 */
export function describeRouteError(error: unknown): RouteErrorDescription {
  if (isUpstreamHttpError(error)) return { error: error.upstreamCode ?? error.upstreamType ?? error.code, status: error.status };
  if (isUpstreamStreamError(error)) return { error: error.upstreamCode ?? error.upstreamType ?? error.code };
  if (isTimeoutError(error)) return { error: `timeout:${error.phase}` };
  if (isChatfluxError(error)) return { error: error.code };
  return { error: 'unknown' };
}
