/**
 * Anthropic's `stop_reason` of a chat completion's `finish_reason`: `stop` → `end_turn`, `length` → `max_tokens`,
 * `tool_calls` (and the older `function_call`) → `tool_use`, `content_filter` → `refusal`, a provider's own
 * `stop_sequence` → `stop_sequence`; anything else (or none) → `end_turn`. OpenAI-compatible providers do not say
 * whether a `stop` sequence ended the answer, so a `stop` is always `end_turn`.
 *
 * @param finishReason - The provider's finish reason.
 * @returns Anthropic's stop reason.
 */
export function toAnthropicStopReason(finishReason: string | undefined): string {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case 'stop_sequence':
      return 'stop_sequence';
    default:
      return 'end_turn';
  }
}
