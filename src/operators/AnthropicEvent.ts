import type { AnthropicUsage } from './toAnthropicUsage.js';

/** A content block of Anthropic's message: text, thinking (its `signature` empty: no provider signs it) or a tool call. */
export type AnthropicContentBlock =
  | {
      /** A text block. */
      type: 'text';
      /** Its text (empty in `content_block_start`: `text_delta`s follow). */
      text: string;
    }
  | {
      /** A thinking block (the provider's reasoning: DeepSeek's `reasoning_content`). */
      type: 'thinking';
      /** Its text (empty in `content_block_start`: `thinking_delta`s follow). */
      thinking: string;
      /** Always empty: no OpenAI-compatible provider signs its reasoning. */
      signature: string;
    }
  | {
      /** A tool call. */
      type: 'tool_use';
      /** The call's id, as the provider gave it. */
      id: string;
      /** The tool's name. */
      name: string;
      /** The parsed arguments (`{}` in `content_block_start`: `input_json_delta`s follow). */
      input: unknown;
    };

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
  | {
      /** The first event. */
      type: 'message_start';
      /** The message's shell: no content yet, zero usage. */
      message: AnthropicMessage;
    }
  | {
      /** A block begins. */
      type: 'content_block_start';
      /** The block's place in the message (0, 1, …). */
      index: number;
      /** The block, empty. */
      content_block: AnthropicContentBlock;
    }
  | {
      /** A piece of a block. */
      type: 'content_block_delta';
      /** The block it belongs to. */
      index: number;
      /** The piece. */
      delta:
        | {
            /** A piece of a text block. */
            type: 'text_delta';
            /** The text. */
            text: string;
          }
        | {
            /** A piece of a thinking block. */
            type: 'thinking_delta';
            /** The reasoning text. */
            thinking: string;
          }
        | {
            /** A piece of a tool call's arguments. */
            type: 'input_json_delta';
            /** A fragment of the arguments' JSON text. */
            partial_json: string;
          };
    }
  | {
      /** A block ends. */
      type: 'content_block_stop';
      /** The block. */
      index: number;
    }
  | ({
      /** The message's end: why, and the usage. */
      type: 'message_delta';
      /** Why it ended. */
      delta: {
        /** `end_turn`, `max_tokens`, `tool_use`, `stop_sequence` or `refusal`. */
        stop_reason: string;
        /** Always `null` (OpenAI-compatible providers do not say which sequence stopped them). */
        stop_sequence: string | null;
      };
      /** The answer's usage. */
      usage: AnthropicUsage;
    } & Record<string, unknown>);
