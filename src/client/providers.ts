import type { PrefillDialect } from './withPrefill.js';

/** A provider preset's name. */
export type ProviderName =
  | 'moonshot'
  | 'moonshot-cn'
  | 'deepseek'
  | 'openai'
  | 'openrouter'
  | 'groq'
  | 'mistral'
  | 'together'
  | 'xai'
  | 'qwen'
  | 'qwen-cn'
  | 'zhipu'
  | 'ollama'
  | 'vllm'
  | 'llamacpp'
  | 'openai-compatible';

/** What a preset fills in when the client's config leaves it out, and what the provider does differently. */
export interface ProviderPreset {
  /** The API's base URL (`{baseUrl}/chat/completions`); `undefined` when the config must give one. */
  baseUrl: string | undefined;
  /** The model used when neither the config nor the request names one (`undefined`: they must). */
  model: string | undefined;
  /** The environment variable holding the API key. */
  apiKeyEnv: string | undefined;
  /** The key may be absent: a local server runs without one unless it was started with a key. */
  apiKeyOptional?: boolean;
  /**
   * The assistant prefill the provider takes to continue a cut answer (docs/PROVIDERS.md), a route target's default
   * `prefill`: `deepseek` (`prefix: true`, beta base URL), `mistral` (`prefix: true`), `moonshot` (`partial: true`),
   * or `false` (none: it would answer afresh).
   */
  prefill: PrefillDialect | false;
  /**
   * What the provider does differently on the wire, and how chatflux deals with it (read by people: the operators
   * handle every point by their general rules, no option needed).
   */
  quirks: readonly string[];
}

const preset = (value: ProviderPreset): Readonly<ProviderPreset> =>
  Object.freeze({ ...value, quirks: Object.freeze([...value.quirks]) });

/**
 * The provider presets of `createChatClient` (and of the gateway's `CHATFLUX_PROVIDER`): base URL, default model, the
 * API key's environment variable, and the quirks each needs (see `quirks` of each preset).
 *
 * | provider | base URL | default model | API key env |
 * |---|---|---|---|
 * | `moonshot` | `https://api.moonshot.ai/v1` | `kimi-k2-0905-preview` | `MOONSHOT_API_KEY` |
 * | `moonshot-cn` | `https://api.moonshot.cn/v1` | `kimi-k2-0905-preview` | `MOONSHOT_API_KEY` |
 * | `deepseek` | `https://api.deepseek.com` | `deepseek-chat` | `DEEPSEEK_API_KEY` |
 * | `openai` | `https://api.openai.com/v1` | `gpt-4o-mini` | `OPENAI_API_KEY` |
 * | `openrouter` | `https://openrouter.ai/api/v1` | (config or request) | `OPENROUTER_API_KEY` |
 * | `groq` | `https://api.groq.com/openai/v1` | (config or request) | `GROQ_API_KEY` |
 * | `mistral` | `https://api.mistral.ai/v1` | `mistral-small-latest` | `MISTRAL_API_KEY` |
 * | `together` | `https://api.together.ai/v1` | (config or request) | `TOGETHER_API_KEY` |
 * | `xai` | `https://api.x.ai/v1` | (config or request) | `XAI_API_KEY` |
 * | `qwen` | `https://dashscope-intl.aliyuncs.com/compatible-mode/v1` (Singapore) | `qwen-plus` | `DASHSCOPE_API_KEY` |
 * | `qwen-cn` | `https://dashscope.aliyuncs.com/compatible-mode/v1` (Beijing) | `qwen-plus` | `DASHSCOPE_API_KEY` |
 * | `zhipu` | `https://open.bigmodel.cn/api/paas/v4` | `glm-4-flash` | `ZHIPUAI_API_KEY` |
 * | `ollama` | `http://localhost:11434/v1` | (config or request) | none |
 * | `vllm` | `http://localhost:8000/v1` | (config or request) | `VLLM_API_KEY` (optional) |
 * | `llamacpp` | `http://localhost:8080/v1` | (config or request) | `LLAMA_API_KEY` (optional) |
 * | `openai-compatible` | (required) | (none: config or request) | (none: config) |
 *
 * API keys are read from the env var unless `apiKey` is given; a preset with a required key and none set is a
 * `ConfigError`. A base URL can always be overridden (a proxy, another region). Each preset's `prefill` is how the
 * provider continues a cut answer (a route target's default): `deepseek` for `deepseek`, `moonshot` (`partial: true`)
 * for `moonshot`, `moonshot-cn`, `qwen`, `qwen-cn`, `mistral` (`prefix: true`) for `mistral`, none for the others.
 */
export const PROVIDERS: Readonly<Record<ProviderName, Readonly<ProviderPreset>>> = Object.freeze({
  moonshot: preset({
    baseUrl: 'https://api.moonshot.ai/v1',
    model: 'kimi-k2-0905-preview',
    apiKeyEnv: 'MOONSHOT_API_KEY',
    prefill: 'moonshot',
    quirks: [
      'usage inside choices[i] of the finishing chunk, and again in a choices: [] chunk with include_usage (counted once)',
      'tool-call fragments may omit index; ids like name:N; builtin_function calls ($web_search)',
      'thinking models stream reasoning_content; no keep-alive comments',
    ],
  }),
  'moonshot-cn': preset({
    baseUrl: 'https://api.moonshot.cn/v1',
    model: 'kimi-k2-0905-preview',
    apiKeyEnv: 'MOONSHOT_API_KEY',
    prefill: 'moonshot',
    quirks: ['as moonshot (the China endpoint)'],
  }),
  deepseek: preset({
    baseUrl: 'https://api.deepseek.com',
    model: 'deepseek-chat',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    prefill: 'deepseek',
    quirks: [
      ': keep-alive comments while queued (minutes), explicit nulls, usage on the finishing chunk',
      'thinking mode (deepseek-reasoner, or thinking: {type: "enabled"}) streams reasoning_content; an assistant turn with tool calls must be sent back with its reasoning_content (else HTTP 400): the accumulated message is ready to send as it is',
      'finish_reason insufficient_system_resource is a failed answer (AnswerFailedError)',
    ],
  }),
  openai: preset({
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    apiKeyEnv: 'OPENAI_API_KEY',
    prefill: false,
    quirks: [
      'refusals stream as delta.refusal (content null): message.refusal in every output',
      'usage only in a final choices: [] chunk (stream_options.include_usage, always asked for)',
      'reasoning models take max_completion_tokens instead of max_tokens',
    ],
  }),
  openrouter: preset({
    baseUrl: 'https://openrouter.ai/api/v1',
    model: undefined,
    apiKeyEnv: 'OPENROUTER_API_KEY',
    prefill: false,
    quirks: [
      'reasoning as delta.reasoning (and reasoning_details): read into reasoning_content',
      ': OPENROUTER PROCESSING comments while queued; a 200 stream may end with data: {"error":…} (UpstreamStreamError)',
      'models are named provider/model; optional HTTP-Referer and X-Title headers (config.headers)',
    ],
  }),
  groq: preset({
    baseUrl: 'https://api.groq.com/openai/v1',
    model: undefined,
    apiKeyEnv: 'GROQ_API_KEY',
    prefill: false,
    quirks: [
      'usage in x_groq.usage of the finishing chunk (sometimes only there): read as usage',
      'reasoning models stream delta.reasoning: read into reasoning_content',
      'created changes mid-stream (the first one is kept); event: error without [DONE]',
      'refuses n > 1, logprobs, top_logprobs and messages[].name with HTTP 400',
    ],
  }),
  mistral: preset({
    baseUrl: 'https://api.mistral.ai/v1',
    model: 'mistral-small-latest',
    apiKeyEnv: 'MISTRAL_API_KEY',
    prefill: 'mistral',
    quirks: [
      'thinking models (magistral) send delta.content as arrays of thinking and text parts: read into reasoning_content and content',
      'tool calls arrive whole in one delta, without index',
    ],
  }),
  together: preset({
    baseUrl: 'https://api.together.ai/v1',
    model: undefined,
    apiKeyEnv: 'TOGETHER_API_KEY',
    prefill: false,
    quirks: ['models are named org/model; reasoning models stream reasoning or reasoning_content (both read)'],
  }),
  xai: preset({
    baseUrl: 'https://api.x.ai/v1',
    model: undefined,
    apiKeyEnv: 'XAI_API_KEY',
    prefill: false,
    quirks: ['reasoning models stream reasoning_content; created changes mid-stream (the first one is kept)'],
  }),
  qwen: preset({
    baseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
    model: 'qwen-plus',
    apiKeyEnv: 'DASHSCOPE_API_KEY',
    prefill: 'moonshot',
    quirks: [
      'DashScope compatible mode (Singapore); keys are per region',
      'tool-call continuation fragments carry id: "" (joined by index)',
      'thinking models stream reasoning_content; the switch is the enable_thinking extension (forwarded)',
    ],
  }),
  'qwen-cn': preset({
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    model: 'qwen-plus',
    apiKeyEnv: 'DASHSCOPE_API_KEY',
    prefill: 'moonshot',
    quirks: ['as qwen (the Beijing endpoint)'],
  }),
  zhipu: preset({
    baseUrl: 'https://open.bigmodel.cn/api/paas/v4',
    model: 'glm-4-flash',
    apiKeyEnv: 'ZHIPUAI_API_KEY',
    prefill: false,
    quirks: ['GLM thinking models stream reasoning_content; the switch is thinking: {type: "enabled"} (forwarded)'],
  }),
  ollama: preset({
    baseUrl: 'http://localhost:11434/v1',
    model: undefined,
    apiKeyEnv: undefined,
    prefill: false,
    apiKeyOptional: true,
    quirks: [
      'no key; every delta repeats role: "assistant" and content: ""',
      'tool calls whole, one per delta; reasoning as delta.reasoning (read into reasoning_content)',
    ],
  }),
  vllm: preset({
    baseUrl: 'http://localhost:8000/v1',
    model: undefined,
    apiKeyEnv: 'VLLM_API_KEY',
    prefill: false,
    apiKeyOptional: true,
    quirks: [
      'a key only when the server was started with --api-key',
      'reasoning parsers send delta.reasoning (newer) or reasoning_content (older): both read, counted once',
    ],
  }),
  llamacpp: preset({
    baseUrl: 'http://localhost:8080/v1',
    model: undefined,
    apiKeyEnv: 'LLAMA_API_KEY',
    prefill: false,
    apiKeyOptional: true,
    quirks: [
      'llama-server: a key only when started with --api-key',
      'created (and sometimes id) change mid-stream: the first non-empty one is kept',
    ],
  }),
  'openai-compatible': preset({ baseUrl: undefined, model: undefined, apiKeyEnv: undefined, prefill: false, quirks: [] }),
});
