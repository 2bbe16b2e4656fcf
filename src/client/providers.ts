/** A provider preset's name. */
export type ProviderName = 'moonshot' | 'moonshot-cn' | 'deepseek' | 'openai-compatible';

/** What a preset fills in when the client's config leaves it out. */
export interface ProviderPreset {
  /** The API's base URL (`{baseUrl}/chat/completions`); `undefined` when the config must give one. */
  baseUrl: string | undefined;
  /** The model used when neither the config nor the request names one. */
  model: string | undefined;
  /** The environment variable holding the API key. */
  apiKeyEnv: string | undefined;
}

/**
 * The provider presets of `createChatClient`.
 *
 * | provider | base URL | default model | API key env |
 * |---|---|---|---|
 * | `moonshot` | `https://api.moonshot.ai/v1` | `kimi-k2-0905-preview` | `MOONSHOT_API_KEY` |
 * | `moonshot-cn` | `https://api.moonshot.cn/v1` | `kimi-k2-0905-preview` | `MOONSHOT_API_KEY` |
 * | `deepseek` | `https://api.deepseek.com` | `deepseek-chat` | `DEEPSEEK_API_KEY` |
 * | `openai-compatible` | (required) | (none: config or request) | (none: config) |
 */
export const PROVIDERS: Readonly<Record<ProviderName, Readonly<ProviderPreset>>> = Object.freeze({
  moonshot: Object.freeze({
    baseUrl: 'https://api.moonshot.ai/v1',
    model: 'kimi-k2-0905-preview',
    apiKeyEnv: 'MOONSHOT_API_KEY',
  }),
  'moonshot-cn': Object.freeze({
    baseUrl: 'https://api.moonshot.cn/v1',
    model: 'kimi-k2-0905-preview',
    apiKeyEnv: 'MOONSHOT_API_KEY',
  }),
  deepseek: Object.freeze({
    baseUrl: 'https://api.deepseek.com',
    model: 'deepseek-chat',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
  }),
  'openai-compatible': Object.freeze({ baseUrl: undefined, model: undefined, apiKeyEnv: undefined }),
});
