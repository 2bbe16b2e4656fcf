import type { Usage } from './schemas/upstream.js';

/**
 * Adds two usages field by field (nested breakdowns too; a field only one side has is kept as it is). What a spliced
 * answer reports: the sum over the attempts whose text was delivered.
 *
 * @param a - A usage, or `undefined`.
 * @param b - Another, or `undefined`.
 * @returns The sum; `undefined` when both are.
 */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return add(a, b) as Usage;
}

function add(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    if (typeof value === 'number' && typeof mine === 'number') out[key] = mine + value;
    else if (isRecord(value) && isRecord(mine)) out[key] = add(mine, value);
    else if (mine == null) out[key] = value;
  }
  return out;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
