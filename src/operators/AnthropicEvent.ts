import type { AnthropicUsage } from './toAnthropicUsage.js';

/** A content block of Anthropic's message: text, thinking (its `signature` empty: no provider signs it) or a tool call. */
export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

/** Anthropic's `message` object: the non-streaming answer of `POST /v1/messages`, and the shell `message_start` carries. */
export interface AnthropicMessage {
  /** `msg_…`. */
  id: string;
  /** Always `message`. */
  type: 'message';
  /** Always `assistant`. */
  role: 'assistant';
  /** The model the client asked for. */
  model: string;
  /** The answer's blocks (empty in `message_start`). */
  content: AnthropicContentBlock[];
  /** Why it ended (`end_turn`, `max_tokens`, `tool_use`, `stop_sequence`, `refusal`); `null` in `message_start`. */
  stop_reason: string | null;
  /** The stop sequence that ended it: always `null` (OpenAI-compatible providers do not say). */
  stop_sequence: string | null;
  /** Token usage (zeros in `message_start`: the provider reports it at the end). */
  usage: AnthropicUsage;
}

/**
 * One event of Anthropic's Messages stream, as `toAnthropicEvents` emits it and `ANTHROPIC_WIRE` frames it
 * (`event: <type>` + `data: <json>`). `message_stop` is the wire's trailer, `ping` its heartbeat and `error` its
 * error frame: they are not values.
 */
export type AnthropicEvent =
  | { type: 'message_start'; message: AnthropicMessage }
  | { type: 'content_block_start'; index: number; content_block: AnthropicContentBlock }
  | {
      type: 'content_block_delta';
      index: number;
      delta: { type: 'text_delta'; text: string } | { type: 'thinking_delta'; thinking: string } | { type: 'input_json_delta'; partial_json: string };
    }
  | { type: 'content_block_stop'; index: number }
  | ({ type: 'message_delta'; delta: { stop_reason: string; stop_sequence: string | null }; usage: AnthropicUsage } & Record<string, unknown>);
