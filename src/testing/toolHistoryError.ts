import type { ChatCompletionRequest } from '../core/schemas/index.js';
import type { EmulatorDialect } from './EmulatorDialect.js';

/**
 * The providers' check of a conversation's tool turns (HTTP 400, `invalid_request_error`), in DeepSeek's words for
 * the `deepseek` dialect and OpenAI's for the others (as client projects' issue trackers quote them):
 *
 * 1. a `tool` message needs its `tool_call_id` (DeepSeek: "missing field `tool_call_id`");
 * 2. a `tool` message must answer a call of the assistant turn just before it (the turn, then its `tool` messages):
 *    "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'";
 * 3. an assistant turn with `tool_calls` must be followed by a `tool` message for each of its ids: "An assistant message
 *    with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'".
 *
 * @param request - A validated request.
 * @param dialect - Whose words.
 * @returns The provider's error message when the request breaks a rule, else `undefined`.
 */
export function toolHistoryError(request: ChatCompletionRequest, dialect: EmulatorDialect): string | undefined {
  const deepseek = dialect === 'deepseek';
  const messages = request.messages;
  /** The ids the assistant turn before still waits answers for; `undefined` outside a turn's tool messages. */
  let open: Set<string> | undefined;
  const unanswered = (): string | undefined => {
    if (open === undefined || open.size === 0) return undefined;
    return deepseek
      ? "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)"
      : `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
  };
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') {
      const id = message.tool_call_id;
      if (typeof id !== 'string' || id === '') {
        return deepseek
          ? `Failed to deserialize the JSON body into the target type: messages[${i}]: missing field \`tool_call_id\``
          : `Missing required parameter: 'messages[${i}].tool_call_id'.`;
      }
      if (open === undefined || !open.delete(id)) {
        return deepseek
          ? "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
          : "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      continue;
    }
    const error = unanswered();
    if (error !== undefined) return error;
    const calls = message.role === 'assistant' ? (message.tool_calls ?? []) : [];
    open = calls.length > 0 ? new Set(calls.map((call) => call.id)) : undefined;
  }
  return unanswered();
}
