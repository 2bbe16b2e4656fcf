/**
 * Shapes of OpenAI-compatible hosts other than the three dialects, layered on any dialect's stream (docs/PROVIDERS.md
 * "Other OpenAI-compatible providers"): so that a project's tests cover each quirk without recorded streams. Every
 * field is optional; `{}` changes nothing. As emulator scenario items: `azure-filter`, `reasoning-field=reasoning`,
 * `content-parts`, `usage-in=x_groq`, `refusal` (and `no-done`, which the stream writer applies).
 */
export interface ProviderQuirks {
  /**
   * Azure OpenAI: open with `{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[…]}`
   * and give every choice `content_filter_results`.
   */
  azureFilter?: boolean;
  /** The field reasoning pieces are sent in: `reasoning_content` (DeepSeek, Kimi; the default) or `reasoning` (OpenRouter, Groq, vLLM). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /**
   * Mistral's thinking models: `delta.content` as an array of parts — reasoning as
   * `[{"type":"thinking","thinking":[{"type":"text","text":…}]}]`, text as `[{"type":"text","text":…}]`.
   */
  contentParts?: boolean;
  /** Groq: the usage only in `x_groq.usage` of each finishing chunk (no top-level or per-choice usage, no usage chunk). */
  usageIn?: 'x_groq';
  /** OpenAI: the model refuses — `delta.refusal` pieces (content `null`) instead of text or tool calls, `finish_reason: stop`. */
  refusal?: boolean;
}
