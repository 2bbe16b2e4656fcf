import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import type { LlmClientOutputChunk } from '../core/schemas/contract.js';
import type { ChatCompletionChunk, ChunkDelta } from '../core/schemas/upstream.js';
import { routeExtensions } from './routeExtensions.js';

/** Options of {@link toChatCompletionChunks}. */
export interface ToChatCompletionChunksConfig {
  /** The model each chunk names (the request's, else the client's default). */
  model: string;
  /** The completion's id on every chunk (default `chatcmpl-<uuid>`). */
  id?: string;
  /** Unix time in seconds on every chunk (default: now). */
  created?: number;
  /** Add the final usage chunk (`choices: []`, `usage`): what `stream_options.include_usage` asks for. Default `false`. */
  includeUsage?: boolean;
}

/**
 * Turns the contract's chunks (`client.stream()`, the `/chat/stream` answer) into OpenAI's `chat.completion.chunk`s,
 * normalized whatever the provider sent: the `POST /v1/chat/completions` stream.
 *
 * ```text
 * source:                   --a------t---------(d|)      a: {content:"Hi"}  t: {tool_calls:[c]}  d: done, finish "tool_calls", usage u
 * toChatCompletionChunks(): --A------T---------(FU|)     A: delta {role:"assistant", content:"Hi"}
 *                                                        T: delta {tool_calls:[{index:0, id, type, function:{name, arguments}}]}
 *                                                        F: delta {}, finish_reason "tool_calls"
 *                                                        U: choices [], usage u            (with includeUsage only)
 * ```
 *
 * 1. Every chunk carries `id`, `object: "chat.completion.chunk"`, `created`, `model` and one choice (`index: 0`). The
 *    first one's delta has `role: "assistant"`.
 * 2. Text is `delta.content`, reasoning `delta.reasoning_content` (whatever field the provider used), a refusal
 *    `delta.refusal`. Tool calls come whole (the source assembled them: Moonshot's fragments without `index` too),
 *    each with its running `index`, its `id` verbatim and `type`.
 * 3. The end of the source gives the finishing chunk (`delta: {}`, `finish_reason`, `stop` when the provider named
 *    none), after the tool calls the end completed; then, with `includeUsage`, the usage chunk: `choices: []` and
 *    the usage at the top level (Moonshot's, read from inside its choice), `null` when the provider sent none.
 * 4. A last chunk that names the model that finished the answer (a route's, after a failover) gives its `model` to
 *    the finishing and usage chunks; its route report (`provider`, `target`, `attempts`, `usage_estimated`) goes on the
 *    last of them, as extension fields at the top level.
 * 5. An error passes through (the wire writes it as OpenAI's error chunk); nothing is emitted after it.
 * 6. A restart chunk (a route's, for a caller that accepts a restart) gives `{…, choices: [], restart: {code}}`: the
 *    answer starts again, and its next delta carries the role again.
 *
 * @param config - The model named, the id and time, whether to add the usage chunk.
 * @returns An operator from contract chunks to `chat.completion.chunk`s.
 */
export function toChatCompletionChunks(
  config: ToChatCompletionChunksConfig,
): OperatorFunction<LlmClientOutputChunk, ChatCompletionChunk> {
  const { model, includeUsage = false } = config;
  return (source) =>
    new Observable<ChatCompletionChunk>((subscriber) => {
      const id = config.id ?? `chatcmpl-${crypto.randomUUID()}`;
      const created = config.created ?? Math.floor(Date.now() / 1000);
      let first = true;
      let toolIndex = 0;
      const chunk = (delta: ChunkDelta, finishReason: string | null): ChatCompletionChunk => {
        if (first) {
          first = false;
          delta = { role: 'assistant', ...delta };
        }
        return { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
      };
      const deltaOf = (piece: LlmClientOutputChunk): ChunkDelta | undefined => {
        const { content, reasoning_content, refusal, tool_calls } = piece.message;
        const hasCalls = tool_calls !== undefined && tool_calls.length > 0;
        const hasReasoning = reasoning_content !== undefined && reasoning_content !== '';
        const hasRefusal = refusal !== undefined && refusal !== '';
        if (content === '' && !hasCalls && !hasReasoning && !hasRefusal) return undefined;
        const delta: ChunkDelta = {};
        if (hasReasoning) delta.reasoning_content = reasoning_content;
        if (content !== '') delta.content = content;
        if (hasRefusal) delta.refusal = refusal;
        if (hasCalls) {
          delta.tool_calls = tool_calls.map((call) => ({ index: toolIndex++, id: call.id, type: call.type, function: { name: call.function.name, arguments: call.function.arguments } }));
        }
        return delta;
      };
      // The operator's own subscriber: a throw errors the result, and a synchronous firehose sees `closed`.
      source.subscribe(
        createOperatorSubscriber<LlmClientOutputChunk>(subscriber, (piece) => {
          if (piece.restart !== undefined) {
            // The answer starts again (a route's restart): its frame, then a new first delta with the role.
            first = true;
            toolIndex = 0;
            subscriber.next({ id, object: 'chat.completion.chunk', created, model, choices: [], restart: piece.restart });
            return;
          }
          const delta = deltaOf(piece);
          if (delta !== undefined) subscriber.next(chunk(delta, null));
          if (!piece.done) return;
          // A route's last chunk names the model that finished the answer (failover): the last chunks say so too.
          const finish = chunk({}, piece.finish_reason ?? 'stop');
          if (piece.model !== undefined && piece.model !== '') finish.model = piece.model;
          // A route's report (target, provider, attempts) goes on the last chunk.
          const route = routeExtensions(piece);
          if (!includeUsage) return void subscriber.next({ ...finish, ...route });
          subscriber.next(finish);
          subscriber.next({ id, object: 'chat.completion.chunk', created, model: finish.model ?? model, choices: [], usage: piece.usage ?? null, ...route });
        }),
      );
    });
}
