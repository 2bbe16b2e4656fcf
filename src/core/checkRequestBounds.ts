import { RequestError } from './errors.js';
import type { RequestLimitsConfig } from './requestLimits.js';
import { resolveRequestLimits } from './resolveRequestLimits.js';

const refuse = (message: string): never => {
  throw new RequestError('invalid_request', message);
};

/**
 * Checks a chat request body against the {@link RequestLimitsConfig} before any schema runs, so that the cost of
 * validating it is bounded by the limits, not by the input: the number of messages, the nesting depth, the number
 * of JSON values and the characters of all strings and keys together.
 *
 * The walk is iterative (no recursion to overflow) and stops at the first limit passed, so it costs at most
 * `maxValues` steps whatever the body. A body that is not an object, or whose `messages` is not an array, passes
 * through: the schema says what is wrong with it.
 *
 * @param body - The parsed JSON body (or the request object a client was given).
 * @param limits - Overrides of {@link DEFAULT_REQUEST_LIMITS}.
 * @throws RequestError `invalid_request` (400) saying which limit the body passes.
 * @throws ConfigError when a limit is not a positive integer.
 */
export function checkRequestBounds(body: unknown, limits: RequestLimitsConfig = {}): void {
  const { maxMessages, maxDepth, maxValues, maxChars } = resolveRequestLimits(limits);
  if (typeof body !== 'object' || body === null) return;
  const messages = (body as { messages?: unknown }).messages;
  if (Array.isArray(messages) && messages.length > maxMessages) {
    refuse(`the request has ${messages.length} messages; at most ${maxMessages} are accepted`);
  }
  let values = 0;
  let chars = 0;
  const stack: unknown[] = [body];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const value = stack.pop();
    const depth = depths.pop() as number;
    if (++values > maxValues) refuse(`the request body has more than ${maxValues} JSON values`);
    if (typeof value === 'string') {
      chars += value.length;
    } else if (typeof value === 'object' && value !== null) {
      if (depth > maxDepth) refuse(`the request body is nested deeper than ${maxDepth} levels`);
      if (Array.isArray(value)) {
        // Pushing costs the values the loop will count: stop before a huge array is copied onto the stack.
        if (values + stack.length + value.length > maxValues) refuse(`the request body has more than ${maxValues} JSON values`);
        for (const item of value) {
          stack.push(item);
          depths.push(depth + 1);
        }
      } else {
        const keys = Object.keys(value);
        if (values + stack.length + keys.length > maxValues) refuse(`the request body has more than ${maxValues} JSON values`);
        for (const key of keys) {
          chars += key.length;
          stack.push((value as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
      }
    }
    if (chars > maxChars) refuse(`the request body's strings are longer than ${maxChars} characters in all`);
  }
}
