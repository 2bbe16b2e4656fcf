/**
 * True when a provider error's `type` or `code` (`upstreamType`, `upstreamCode`) is one of `names` — e.g. a used-up
 * quota (`DEFAULT_RETRY_POLICY.neverUpstreamTypes`), which providers send as either, with a 429 or a 403.
 *
 * @param error - An `UpstreamHttpError` or `UpstreamStreamError` (anything with those two optional fields).
 * @param names - The provider error names to look for.
 */
export function isNamedUpstreamError(
  error: { upstreamType?: string | undefined; upstreamCode?: string | undefined },
  names: readonly string[],
): boolean {
  const { upstreamType, upstreamCode } = error;
  return (
    (upstreamType !== undefined && names.includes(upstreamType)) ||
    (upstreamCode !== undefined && names.includes(upstreamCode))
  );
}
