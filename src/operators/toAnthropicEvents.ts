import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError } from '../core/errors.js';
import type { LlmClientOutputChunk } from '../core/schemas/contract.js';
import type { AnthropicEvent } from './AnthropicEvent.js';
import { routeExtensions } from './routeExtensions.js';
import { toAnthropicStopReason } from './toAnthropicStopReason.js';
import { toAnthropicUsage } from './toAnthropicUsage.js';

/** Options of {@link toAnthropicEvents}. */
export interface ToAnthropicEventsConfig {
  /** The model `message_start` names (the one the client asked for). */
  model: string;
  /** The message's id (default `msg_<uuid>`). */
  id?: string;
}

/**
 * Turns the contract's chunks (`client.stream()`, the `/chat/stream` answer) into Anthropic's Messages stream events:
 * the `POST /v1/messages` stream, as the `@anthropic-ai/sdk` and Claude Code read it.
 *
 * ```text
 * source:              --r------a-----t-------(d|)    r: {reasoning_content:"Hm"}  a: {content:"Hi"}  t: {tool_calls:[c]}
 *                                                     d: done, finish "tool_calls", usage u
 * toAnthropicEvents(): --(SBR)--(PBA)-(QBJQ)--(M|)    S: message_start  B: content_block_start (thinking, text, tool_use)
 *                                                     R: thinking_delta  A: text_delta  J: input_json_delta
 *                                                     P, Q: content_block_stop  M: message_delta {stop_reason:"tool_use"}, usage
 * ```
 *
 * 1. The first chunk gives `message_start` (the message's shell: id, the model asked for, no content, zero usage).
 * 2. Reasoning goes in a `thinking` block (`thinking_delta`s, an empty `signature`), text in a `text` block
 *    (`text_delta`s; a refusal too); a block is stopped when the next kind of content begins. Each tool call is a
 *    `tool_use` block of its own (its id verbatim): start, its arguments as one `input_json_delta`, stop.
 * 3. The last chunk stops the open block and gives `message_delta`: `stop_reason` (`toAnthropicStopReason`) and the
 *    usage (`toAnthropicUsage`), with a route's report (`provider`, `target`, `attempts`, `usage_estimated`) as
 *    extension fields. `message_stop` is not a value: `ANTHROPIC_WIRE` writes it as its trailer, when the source
 *    completes — so an answer that ends in an error never gets one.
 * 4. An error passes through (the wire writes it as an `error` event). A restart chunk (a route's, for a caller that
 *    accepts one) cannot be said in this stream: it is a `ConfigError`.
 *
 * @param config - The model named, the message's id.
 * @returns An operator from contract chunks to Anthropic's events.
 */
export function toAnthropicEvents(config: ToAnthropicEventsConfig): OperatorFunction<LlmClientOutputChunk, AnthropicEvent> {
  return (source) =>
    new Observable<AnthropicEvent>((subscriber) => {
      const id = config.id ?? `msg_${crypto.randomUUID().replaceAll('-', '')}`;
      let started = false;
      let index = -1;
      let open: 'text' | 'thinking' | undefined;
      const stop = (): void => {
        if (open === undefined) return;
        subscriber.next({ type: 'content_block_stop', index });
        open = undefined;
      };
      const into = (kind: 'text' | 'thinking'): void => {
        if (open === kind) return;
        stop();
        index++;
        open = kind;
        subscriber.next({
          type: 'content_block_start',
          index,
          content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' },
        });
      };
      source.subscribe(
        createOperatorSubscriber<LlmClientOutputChunk>(subscriber, (piece) => {
          if (piece.restart !== undefined) {
            throw new ConfigError('toAnthropicEvents: a restarted answer cannot be said in an Anthropic stream; do not accept restarts (Chatflux-Accept-Restart) for it.');
          }
          if (!started) {
            started = true;
            const usage = toAnthropicUsage(undefined);
            subscriber.next({ type: 'message_start', message: { id, type: 'message', role: 'assistant', model: config.model, content: [], stop_reason: null, stop_sequence: null, usage } });
          }
          const { content, reasoning_content, refusal, tool_calls } = piece.message;
          if (reasoning_content !== undefined && reasoning_content !== '') {
            into('thinking');
            subscriber.next({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: reasoning_content } });
          }
          for (const text of [content, refusal ?? '']) {
            if (text === '') continue;
            into('text');
            subscriber.next({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
          }
          for (const call of tool_calls ?? []) {
            stop();
            index++;
            subscriber.next({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.function.name, input: {} } });
            subscriber.next({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: call.function.arguments } });
            subscriber.next({ type: 'content_block_stop', index });
          }
          if (!piece.done) return;
          stop();
          subscriber.next({
            type: 'message_delta',
            delta: { stop_reason: toAnthropicStopReason(piece.finish_reason), stop_sequence: null },
            usage: toAnthropicUsage(piece.usage),
            ...routeExtensions(piece),
          });
        }),
      );
    });
}
