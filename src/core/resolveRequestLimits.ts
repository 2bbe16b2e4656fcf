import { ConfigError } from './errors.js';
import { DEFAULT_REQUEST_LIMITS, type RequestLimitsConfig } from './requestLimits.js';

const LIMIT_NAMES = ['maxMessages', 'maxDepth', 'maxValues', 'maxChars', 'maxIssues'] as const;

/**
 * The request limits with their defaults applied, checked: each must be a positive integer (or `Infinity`).
 *
 * @throws ConfigError naming the limit to fix.
 */
export function resolveRequestLimits(limits: RequestLimitsConfig = {}): Readonly<Required<RequestLimitsConfig>> {
  const resolved = { ...DEFAULT_REQUEST_LIMITS, ...limits };
  for (const name of LIMIT_NAMES) {
    const value = resolved[name];
    if (!(value > 0) || (value !== Infinity && !Number.isInteger(value))) {
      throw new ConfigError(
        `request limits: \`${name}\` must be a positive integer (or Infinity), got ${String(value)}; omit it for ${DEFAULT_REQUEST_LIMITS[name]}.`,
      );
    }
  }
  return resolved;
}
