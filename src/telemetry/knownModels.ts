import { ConfigError } from '../core/errors.js';
import type { TelemetryConfig } from './TelemetryConfig.js';

/**
 * The models a client's metrics may name (`TelemetryConfig.models`), as one predicate: the configured ones (a chat
 * client's `model`) and the config's list or predicate. Without either, no name is known: every model is recorded as
 * `other`.
 *
 * @param models - `TelemetryConfig.models`: a list of names, or a predicate.
 * @param configured - Names that are known in any case (`undefined` entries are skipped).
 * @returns Whether a name may appear in a metric attribute.
 * @throws ConfigError when `models` is neither a list of strings nor a function, saying how to write it.
 */
export function knownModels(models: TelemetryConfig['models'], configured: ReadonlyArray<string | undefined> = []): (model: string) => boolean {
  const names = new Set(configured.filter((name): name is string => typeof name === 'string' && name !== ''));
  if (models === undefined) return (model) => names.has(model);
  if (typeof models === 'function') return (model) => names.has(model) || models(model) === true;
  if (!Array.isArray(models) || models.some((name) => typeof name !== 'string')) {
    throw new ConfigError("telemetry.models must be a list of model names (e.g. ['deepseek-chat']) or a predicate (name) => boolean.");
  }
  for (const name of models) names.add(name);
  return (model) => names.has(model);
}
