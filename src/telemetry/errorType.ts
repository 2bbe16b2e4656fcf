/**
 * The `error.type` of a failed completion: a chatflux error's `code` (`timeout`, `upstream_http`, `aborted`, …),
 * else the error's class name, else `_OTHER` (the conventions' fallback). Low-cardinality by construction.
 *
 * @param error - What the completion failed with.
 * @returns The value for `error.type`.
 */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && code !== '') return code;
    if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
  }
  return '_OTHER';
}
