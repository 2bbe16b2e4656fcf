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
  | { type: 'start'; messageId?: string }
  | { type: 'start-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'finish-step' }
  | { type: 'finish'; messageMetadata?: UiMessageFinishMetadata };
