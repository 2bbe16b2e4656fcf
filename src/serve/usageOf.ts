import type { Usage } from '../core/schemas/index.js';

/**
 * The usage a written value carries: a chunk's `usage`, or the `usage` of the `data` of a `/chat/json` answer.
 *
 * @param value - A value the writer wrote.
 * @returns Its usage, if it has one.
 */
export function usageOf(value: unknown): Usage | undefined {
  const record = value as { usage?: Usage; data?: { usage?: Usage } } | null;
  return record?.usage ?? record?.data?.usage;
}
