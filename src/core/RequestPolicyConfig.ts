/**
 * What the operator of a gateway allows its clients to ask for: checked by `parseChatRequest(body, model, policy)`
 * after the schema, before anything goes upstream. Every field is optional; `{}` allows everything (each field of the
 * request then reaches the provider intact). Refusals are 400 `invalid_request` naming the field.
 *
 * ## Example
 * ```ts
 * chatRouter({ client, requestPolicy: { allowedModels: ['deepseek-chat'], maxTokens: 4096, maxN: 1, stripFields: ['user'] } });
 * ```
 */
export interface RequestPolicyConfig {
  /**
   * The models a request may name (exact names). A request naming another is refused; one naming none gets the
   * server's default model, which is not checked.
   */
  allowedModels?: readonly string[];
  /**
   * The most tokens an answer may have. A request asking for more in `max_tokens` or `max_completion_tokens` is
   * refused; a request asking for neither is sent with `max_tokens` set to this cap.
   */
  maxTokens?: number;
  /** The most choices (`n`) a request may ask for; more is refused. */
  maxN?: number;
  /**
   * Top-level fields removed from every request before it goes upstream (e.g. `['user', 'logprobs', 'thinking']`).
   * `model` and `messages` cannot be stripped.
   */
  stripFields?: readonly string[];
}
