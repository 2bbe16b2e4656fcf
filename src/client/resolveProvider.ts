import { ConfigError } from '../core/errors.js';
import { PROVIDERS, type ProviderName } from './providers.js';

/** What `createChatClient` needs from its config to reach a provider. */
export interface ProviderSettings {
  provider?: ProviderName | undefined;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  model?: string | undefined;
  env?: Record<string, string | undefined> | undefined;
}

/** The settings with the preset's defaults applied and checked. */
export interface ResolvedProvider {
  provider: ProviderName;
  baseUrl: string;
  apiKey: string | undefined;
  model: string | undefined;
}

/**
 * Applies a provider preset: the base URL, the default model, and the API key from its env var. Throws a
 * `ConfigError` that says how to fix the call for an unknown provider, a missing or non-http(s) base URL, or a
 * preset whose key is required and missing (an empty key counts as none; local servers' keys are optional). The key is trimmed: one read from a CRLF `.env` file ends in
 * `\r`, which no provider's key contains and undici refuses in a header.
 */
export function resolveProvider(settings: ProviderSettings): ResolvedProvider {
  const provider = settings.provider ?? 'openai-compatible';
  const preset = Object.prototype.hasOwnProperty.call(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
  if (preset === undefined) {
    const names = Object.keys(PROVIDERS).join(', ');
    throw new ConfigError(`createChatClient: unknown provider ${JSON.stringify(provider)}; use one of ${names}.`);
  }
  const baseUrl = settings.baseUrl ?? preset.baseUrl;
  if (baseUrl === undefined || !/^https?:\/\//i.test(baseUrl)) {
    throw new ConfigError(
      `createChatClient: \`baseUrl\` must be an http(s) URL for provider '${provider}', e.g. { baseUrl: 'http://localhost:8000/v1' }.`,
    );
  }
  const env = settings.env ?? process.env;
  const apiKey =
    nonEmpty(settings.apiKey) ?? (preset.apiKeyEnv === undefined ? undefined : nonEmpty(env[preset.apiKeyEnv]));
  if (apiKey === undefined && preset.apiKeyEnv !== undefined && preset.apiKeyOptional !== true) {
    throw new ConfigError(
      `createChatClient: no API key for '${provider}'; pass { apiKey } or set ${preset.apiKeyEnv}.`,
    );
  }
  return { provider, baseUrl, apiKey, model: settings.model ?? preset.model };
}

const nonEmpty = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
};
