import type { ChatClientConfig } from './createChatClient.js';
import type { PrefillDialect } from './withPrefill.js';

/** One target of a route: a client configuration (another key, model or provider) and what it can do. */
export interface ChatRouteTarget extends ChatClientConfig {
  /** The target's name in attempts, events and logs (default `provider:model`, numbered when two are alike). */
  name?: string;
  /**
   * How this target continues a cut answer from its text so far: `deepseek` (an assistant message with
   * `prefix: true`, sent to DeepSeek's beta base URL), `mistral` (`prefix: true` on its own base URL), `moonshot`
   * (`partial: true`), `assistant` (a trailing assistant message, for servers that accept a prefill), or `false` (it
   * cannot: never asked to continue; an answer it cut starts again instead, see `ChatCallOptions.acceptRestart`).
   * Default: its preset's (`PROVIDERS[provider].prefill`): `deepseek`; `moonshot` for `moonshot`, `moonshot-cn`, `qwen`,
   * `qwen-cn`; `mistral`; else `false`. A continuation is checked (`verifyContinuation`): a target that answers afresh
   * is a failed continuation, never the text twice.
   */
  prefill?: PrefillDialect | false;
  /** Where a `deepseek` prefill goes (default: the target's `baseUrl` + `/beta`, DeepSeek's `https://api.deepseek.com/beta`). */
  prefillBaseUrl?: string;
  /** The model's context window in tokens: a `context_length_exceeded` moves on to the next target declared larger. */
  contextWindow?: number;
  /** The target's deadlines (see `DEFAULT_TIMEOUTS`) but `json`, refused (a `ConfigError`): a route's `json()` is bounded by the route's `jsonTimeoutMs`. */
  timeouts?: Omit<NonNullable<ChatClientConfig['timeouts']>, 'json'> & {
    /** Refused: set the route's `jsonTimeoutMs`. */
    json?: undefined;
  };
  /** Refused (a `ConfigError`): a route's `json()` is bounded by the route's `maxAnswerChars`, not a target's. */
  maxAnswerChars?: undefined;
}
