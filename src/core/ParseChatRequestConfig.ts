import type { RequestLimitsConfig } from './requestLimits.js';
import type { RequestPolicyConfig } from './RequestPolicyConfig.js';

/** Options of `parseChatRequest`: what the operator allows, and the bounds held before validation. */
export interface ParseChatRequestConfig {
  /** Allowed models, caps on `max_tokens` / `max_completion_tokens` and `n`, fields to strip (default: everything). */
  policy?: RequestPolicyConfig;
  /** Bounds checked before the schema runs (messages, nesting, values, characters, issues kept); see `DEFAULT_REQUEST_LIMITS`. */
  limits?: RequestLimitsConfig;
}
