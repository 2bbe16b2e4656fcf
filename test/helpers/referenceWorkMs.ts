import { jsonParseMs } from './jsonParseMs';

/** 80,000 empty objects (240 KB of JSON): a fixed piece of CPU work. */
const REFERENCE = `[${new Array(80_000).fill('{}').join(',')}]`;

/**
 * What a fixed piece of CPU work (`JSON.parse` of 240 KB) takes in this process now, in ms (the median of 5): how much
 * of the machine this test gets, as a baseline taken in the same test for a timing bound (`loadAllowance`,
 * `promptBound`). Several times more when other work shares the machine's cores.
 *
 * @returns The median time, in ms.
 */
export function referenceWorkMs(): number {
  return jsonParseMs(REFERENCE);
}
