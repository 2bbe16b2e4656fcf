import { jsonParseMs } from './jsonParseMs';

/** 330,000 empty objects (990 KB of JSON): a fixed piece of CPU work. */
const REFERENCE = `[${new Array(330_000).fill('{}').join(',')}]`;

/**
 * What a fixed piece of CPU work (`JSON.parse` of 990 KB) takes in this process now, in ms (the median of 5): how much
 * of the machine this test gets, as a baseline taken in the same test for a timing bound (`loadAllowance`,
 * `promptBound`). Several times more when other work shares the machine's cores.
 *
 * @returns The median time, in ms.
 */
export function referenceWorkMs(): number {
  return jsonParseMs(REFERENCE);
}
