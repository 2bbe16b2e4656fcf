import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError } from '../core/errors.js';
import type { LlmClientOutputChunk } from '../core/schemas/contract.js';
import { routeExtensions } from './routeExtensions.js';
import type { UiMessageChunk, UiMessageFinishMetadata } from './UiMessageChunk.js';

/** Options of {@link toUiMessageStream}. */
export interface ToUiMessageStreamConfig {
  /** The assistant message's id, sent in `start` (default: none — the client makes one). */
  messageId?: string;
}

/** A tool call's arguments as the `input` of `tool-input-available`: the parsed JSON, else the text as it came. */
const inputOf = (args: string): unknown => {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
};

/**
 * Turns the contract's chunks (`client.stream()`, the `/chat/stream` answer) into the AI SDK's UI message stream
 * parts: the `POST /chat/ui` answer, as `useChat` (`DefaultChatTransport`) and `readUIMessageStream` read it.
 *
 * ```text
 * source:              --r------a-------t---------(d|)    r: {reasoning_content:"Hm"}  a: {content:"Hi"}  t: {tool_calls:[c]}
 *                                                         d: done, finish "tool_calls", usage u
 * toUiMessageStream(): --(SPBr)-(EBa)---(XIDA)----(YF|)   S: start  P: start-step  B: reasoning-start, text-start
 *                                                         r: reasoning-delta  a: text-delta  E, X: reasoning-end, text-end
 *                                                         I: tool-input-start  D: tool-input-delta  A: tool-input-available
 *                                                         Y: finish-step  F: finish {messageMetadata: {finish_reason, usage}}
 * ```
 *
 * 1. The first chunk gives `start` (with `messageId` when configured) and `start-step`: the answer is one step.
 * 2. Reasoning goes in a reasoning block, text in a text block (a refusal too), each with an id of its own
 *    (`reasoning-0`, `text-1`, …: the block's number in the answer); a block ends when the next kind of content begins.
 * 3. Each tool call (complete in the contract) ends the open block and gives `tool-input-start`, its arguments as one
 *    `tool-input-delta`, and `tool-input-available` with the arguments parsed (the text itself when they are not JSON).
 * 4. The last chunk ends the open block and gives `finish-step` and `finish`, whose `messageMetadata` holds the
 *    finish reason, the usage and a route's report under the contract's names.
 * 5. Only `ai` 5.0.0's part set and fields: no `finishReason` on `finish` (older clients reject undeclared fields).
 *    An error passes through: `UI_MESSAGE_WIRE` writes it as an `error` part and no `[DONE]`, so `useChat` ends in its
 *    error state, never with a complete message. A restart chunk (a route's, for a caller that accepts one) cannot be
 *    said in this stream: it is a `ConfigError`.
 *
 * @param config - The message's id.
 * @returns An operator from contract chunks to UI message stream parts.
 */
export function toUiMessageStream(config: ToUiMessageStreamConfig = {}): OperatorFunction<LlmClientOutputChunk, UiMessageChunk> {
  return (source) =>
    new Observable<UiMessageChunk>((subscriber) => {
      let started = false;
      let blocks = 0;
      let open: { kind: 'text' | 'reasoning'; id: string } | undefined;
      const end = (): void => {
        if (open === undefined) return;
        subscriber.next({ type: open.kind === 'text' ? 'text-end' : 'reasoning-end', id: open.id });
        open = undefined;
      };
      const into = (kind: 'text' | 'reasoning'): string => {
        if (open?.kind === kind) return open.id;
        end();
        open = { kind, id: `${kind}-${blocks++}` };
        subscriber.next({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id: open.id });
        return open.id;
      };
      source.subscribe(
        createOperatorSubscriber<LlmClientOutputChunk>(subscriber, (piece) => {
          if (piece.restart !== undefined) {
            throw new ConfigError('toUiMessageStream: a restarted answer cannot be said in a UI message stream; do not accept restarts (Chatflux-Accept-Restart) for it.');
          }
          if (!started) {
            started = true;
            subscriber.next(config.messageId === undefined ? { type: 'start' } : { type: 'start', messageId: config.messageId });
            subscriber.next({ type: 'start-step' });
          }
          const { content, reasoning_content, refusal, tool_calls } = piece.message;
          if (reasoning_content !== undefined && reasoning_content !== '') {
            subscriber.next({ type: 'reasoning-delta', id: into('reasoning'), delta: reasoning_content });
          }
          for (const text of [content, refusal ?? '']) {
            if (text === '') continue;
            subscriber.next({ type: 'text-delta', id: into('text'), delta: text });
          }
          for (const call of tool_calls ?? []) {
            end();
            const { name, arguments: args } = call.function;
            subscriber.next({ type: 'tool-input-start', toolCallId: call.id, toolName: name });
            subscriber.next({ type: 'tool-input-delta', toolCallId: call.id, inputTextDelta: args });
            subscriber.next({ type: 'tool-input-available', toolCallId: call.id, toolName: name, input: inputOf(args) });
          }
          if (!piece.done) return;
          end();
          const metadata: UiMessageFinishMetadata = {};
          if (piece.finish_reason !== undefined) metadata.finish_reason = piece.finish_reason;
          if (piece.usage !== undefined) metadata.usage = piece.usage;
          if (piece.model !== undefined) metadata.model = piece.model;
          Object.assign(metadata, routeExtensions(piece));
          subscriber.next({ type: 'finish-step' });
          subscriber.next(Object.keys(metadata).length === 0 ? { type: 'finish' } : { type: 'finish', messageMetadata: metadata });
        }),
      );
    });
}
