/**
 * A tool's result as the `tool` message's content: a string as it is, anything else as JSON (`undefined` as `null`).
 *
 * @throws TypeError for a value JSON cannot write (a cycle, a `BigInt`): the call then fails as if the tool had thrown.
 */
export function toolResultContent(result: unknown): string {
  return typeof result === 'string' ? result : JSON.stringify(result ?? null);
}
