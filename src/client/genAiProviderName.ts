import type { ProviderName } from './providers.js';

const NAMES: Readonly<Record<ProviderName, string>> = {
  moonshot: 'moonshot_ai',
  'moonshot-cn': 'moonshot_ai',
  deepseek: 'deepseek',
  openai: 'openai',
  openrouter: 'openrouter',
  groq: 'groq',
  mistral: 'mistral_ai',
  together: 'together_ai',
  xai: 'x_ai',
  qwen: 'alibaba_cloud',
  'qwen-cn': 'alibaba_cloud',
  zhipu: 'zhipu_ai',
  ollama: 'ollama',
  vllm: 'vllm',
  llamacpp: 'llama_cpp',
  'openai-compatible': 'openai',
};

/**
 * The `gen_ai.provider.name` of a preset, as the OpenTelemetry GenAI conventions name providers (`deepseek`,
 * `openai`, `groq`, `mistral_ai`, `x_ai`; `moonshot_ai` and the others in the same style). `openai-compatible` is
 * `openai`: the conventions' name is the telemetry flavour, and the wire is OpenAI's.
 *
 * @param provider - The client's preset.
 * @returns The provider name for spans and metrics.
 */
export function genAiProviderName(provider: ProviderName): string {
  return NAMES[provider];
}
