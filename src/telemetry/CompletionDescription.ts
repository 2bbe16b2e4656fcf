/** What a completion's span and metrics say about the request before anything was sent. */
export interface CompletionDescription {
  /** `gen_ai.provider.name` (`deepseek`, `moonshot_ai`, `openai`, …). */
  providerName: string;
  /** The model asked for (`gen_ai.request.model`). */
  model?: string | undefined;
  /** The provider's base URL: `server.address` and `server.port` come from it. */
  baseUrl?: string | undefined;
  /** The request body's fields the conventions name (temperature, max_tokens, top_p, seed, n, messages). */
  request?: Readonly<Record<string, unknown>> | undefined;
  /** Whether the answer is streamed to the caller (`gen_ai.request.stream`; default `true`). */
  stream?: boolean | undefined;
}
