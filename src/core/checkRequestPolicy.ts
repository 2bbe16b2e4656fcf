import { ConfigError } from './errors.js';
import type { RequestPolicyConfig } from './RequestPolicyConfig.js';

const positiveInteger = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) > 0;

/**
 * Checks a {@link RequestPolicyConfig}; throws a `ConfigError` that says how to fix it. Adapters call it once, when
 * they are created, so that a wrong policy fails at start and not at the first request.
 *
 * @param policy - The operator's policy.
 * @returns The same policy.
 */
export function checkRequestPolicy(policy: RequestPolicyConfig): RequestPolicyConfig {
  const { allowedModels, maxTokens, maxN, stripFields } = policy;
  if (
    allowedModels !== undefined &&
    (!Array.isArray(allowedModels) || allowedModels.some((m) => typeof m !== 'string' || m === ''))
  )
    throw new ConfigError("requestPolicy.allowedModels must be an array of model names, e.g. ['deepseek-chat'].");
  if (maxTokens !== undefined && !positiveInteger(maxTokens))
    throw new ConfigError(`requestPolicy.maxTokens must be a positive integer, got ${String(maxTokens)}.`);
  if (maxN !== undefined && !positiveInteger(maxN))
    throw new ConfigError(`requestPolicy.maxN must be a positive integer, got ${String(maxN)}.`);
  if (stripFields !== undefined) {
    if (!Array.isArray(stripFields) || stripFields.some((f) => typeof f !== 'string'))
      throw new ConfigError("requestPolicy.stripFields must be an array of field names, e.g. ['user'].");
    const vital = stripFields.find((f) => f === 'model' || f === 'messages');
    if (vital !== undefined)
      throw new ConfigError(
        `requestPolicy.stripFields cannot strip \`${vital}\`: a request needs it (use allowedModels to restrict models).`,
      );
  }
  return policy;
}
