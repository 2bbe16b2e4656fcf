import { isChatfluxErrorCode } from '../core/isChatfluxErrorCode.js';

/**
 * The `error.type` of a failed completion, from a bounded set: a chatflux error's `code` (`timeout`, `upstream_http`,
 * `upstream_error`, `aborted`, …: the `ChatfluxErrorCode` union), else `_OTHER` (the conventions' fallback). Never a
 * provider's own `code` or `type`, nor any other string an error carries: an upstream could make every one distinct,
 * and each would be a new metric series.
 *
 * @param error - What the completion failed with.
 * @returns The value for `error.type`.
 */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code } = error as { code?: unknown };
    if (isChatfluxErrorCode(code)) return code;
  }
  return '_OTHER';
}
