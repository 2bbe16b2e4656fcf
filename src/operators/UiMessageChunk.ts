import type { Usage } from '../core/schemas/upstream.js';
import type { RouteExtensions } from './routeExtensions.js';

/**
 * What `toUiMessageStream` puts in the `finish` part's `messageMetadata`: why the answer ended, its usage and the
 * route's report, under the contract's names (`messageMetadata` is free-form in every version of the protocol).
 */
export interface UiMessageFinishMetadata extends RouteExtensions {
  /** Why the answer ended (`stop`, `length`, `tool_calls`, …), as `/chat/json` says it. */
  finish_reason?: string;
  /** Token usage, counted once. */
  usage?: Usage;
  /** The model that finished the answer, through a route. */
  model?: string;
}

/**
 * One part of the AI SDK's UI message stream (`useChat`'s protocol, `x-vercel-ai-ui-message-stream: v1`), as
 * `toUiMessageStream` emits it and `UI_MESSAGE_WIRE` frames it (`data: <json>`): only the part types and fields of
 * `ai` 5.0.0's `uiMessageChunkSchema`, which rejects any other. `error` is the wire's error frame, `[DONE]` its
 * trailer: they are not values.
 */
export type UiMessageChunk =
  | {
      /** The message begins. */
      type: 'start';
      /** The message's id (the transport makes one when absent). */
      messageId?: string;
    }
  | {
      /** A step (one upstream answer) begins. */
      type: 'start-step';
    }
  | {
      /** A text block begins. */
      type: 'text-start';
      /** The block's id, which its deltas and end name. */
      id: string;
    }
  | {
      /** A piece of a text block. */
      type: 'text-delta';
      /** The block's id. */
      id: string;
      /** The text. */
      delta: string;
    }
  | {
      /** A text block ends. */
      type: 'text-end';
      /** The block's id. */
      id: string;
    }
  | {
      /** A reasoning block begins (the provider's `reasoning_content`). */
      type: 'reasoning-start';
      /** The block's id, which its deltas and end name. */
      id: string;
    }
  | {
      /** A piece of a reasoning block. */
      type: 'reasoning-delta';
      /** The block's id. */
      id: string;
      /** The reasoning text. */
      delta: string;
    }
  | {
      /** A reasoning block ends. */
      type: 'reasoning-end';
      /** The block's id. */
      id: string;
    }
  | {
      /** A tool call begins. */
      type: 'tool-input-start';
      /** The call's id, as the provider gave it. */
      toolCallId: string;
      /** The tool's name. */
      toolName: string;
    }
  | {
      /** A piece of a tool call's arguments. */
      type: 'tool-input-delta';
      /** The call's id. */
      toolCallId: string;
      /** A fragment of the arguments' JSON text. */
      inputTextDelta: string;
    }
  | {
      /** A tool call is complete. */
      type: 'tool-input-available';
      /** The call's id. */
      toolCallId: string;
      /** The tool's name. */
      toolName: string;
      /** The parsed arguments. */
      input: unknown;
    }
  | {
      /** A step ends. */
      type: 'finish-step';
    }
  | {
      /** The message ends. */
      type: 'finish';
      /** Why, the usage and the route's report. */
      messageMetadata?: UiMessageFinishMetadata;
    };
