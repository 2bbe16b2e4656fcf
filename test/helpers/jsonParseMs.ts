/**
 * What `JSON.parse(text)` takes in this process on this machine now, in ms (the median of 5): a baseline of CPU work,
 * taken in the same test, for a timing bound under load (see `loadAllowance`). A gateway in the test's process must
 * parse a hostile body whatever its request limits are: how long that takes is what its pauses are measured against.
 *
 * @param text - JSON text (a hostile body).
 * @returns The median time of 5 parses, in ms.
 */
export function jsonParseMs(text: string): number {
  const times = [0, 1, 2, 3, 4].map(() => {
    const started = performance.now();
    JSON.parse(text);
    return performance.now() - started;
  });
  return times.sort((a, b) => a - b)[2] ?? 0;
}
