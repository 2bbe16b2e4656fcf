import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError } from '../core/errors.js';
import { createOutputAccumulator } from './createOutputAccumulator.js';
import type { LlmClientOutputChunk, OutputMessage } from '../core/schemas/contract.js';
import type { ChatCompletionChunk } from '../core/schemas/upstream.js';

/** Options of {@link toOutputChunks}. */
export interface ToOutputChunksConfig {
  /**
   * Which choice to follow when the upstream was asked for `n > 1` answers (default `0`). The contract has one
   * message per chunk, so the other choices are left out; run one pipeline per choice to serve each.
   */
  choice?: number;
}

/**
 * Turns upstream chunks into the contract's chunks: the lines of `/chat/stream` and the data of `/chat/sse`.
 *
 * Each chunk that says something becomes `{"message":{"role":"assistant","content":"…"},"done":false,"index":N}`;
 * the end of the stream becomes the one `done: true` chunk.
 *
 * ```text
 * source:           --a--b--r--c--|        a: role only, b: "Hi", r: reasoning "…", c: finish_reason "stop"
 * toOutputChunks(): -----B--R-----(D|)     B: {content:"Hi", done:false, index:0}
 *                                          R: {content:"", reasoning_content:"…", done:false, index:1}
 *                                          D: {content:"", done:true, index:2, finish_reason:"stop", usage}
 * ```
 *
 * 1. `index` counts the emitted chunks from 0 without gaps. Chunks with nothing to say (role-only, empty strings,
 *    `delta: {}`, usage-only, other choices) are not emitted.
 * 2. `message.content` is the chunk's text (`''` when it carries only reasoning, a refusal or tool calls; a content
 *    array's `text` parts are text); `message.reasoning_content` appears on reasoning deltas (`reasoning_content`,
 *    `reasoning` or Mistral's `thinking` parts); `message.refusal` on refusal deltas; `message.tool_calls` carries
 *    calls once complete (`{id, type, function: {name, arguments}}`, the id verbatim), never fragments.
 * 3. Exactly one chunk has `done: true`: the last, emitted when the source completes (after `[DONE]`, or at a clean
 *    end after every `finish_reason`). It carries `content: ''`, the tool calls the end of the stream completed, and
 *    `finish_reason`, `usage` (top level, `x_groq.usage` or the choice's own) and `usage_missing` when known.
 * 4. n > 1: only the choice `config.choice` (default 0) is followed; its finish reason and usage are used (a
 *    top-level usage, which covers all choices, wins when it comes later).
 * 5. Errors: `finish_reason: insufficient_system_resource` → {@link AnswerFailedError}; a source that completes
 *    without any chunk → {@link StreamProtocolError} `stream_incomplete`; source errors pass through.
 *
 * ## Example
 * ```ts
 * bytes$.pipe(parseSse(), decodeChunk(), toOutputChunks(), toNdjson());
 * // {"message":{"role":"assistant","content":"Hi"},"done":false,"index":0}
 * // {"message":{"role":"assistant","content":""},"done":true,"index":1,"finish_reason":"stop"}
 * ```
 *
 * @param config - `choice`: the choice to follow when n > 1.
 * @returns An operator from upstream chunks to the contract's chunks.
 * @throws ConfigError when `config.choice` is not a non-negative integer.
 */
export function toOutputChunks(
  config: ToOutputChunksConfig = {},
): OperatorFunction<ChatCompletionChunk, LlmClientOutputChunk> {
  const choice = config.choice ?? 0;
  if (!Number.isInteger(choice) || choice < 0) {
    throw new ConfigError(
      `toOutputChunks: \`choice\` must be a non-negative integer (a choice index), got ${String(choice)}.`,
    );
  }
  return (source) =>
    new Observable<LlmClientOutputChunk>((subscriber) => {
      const state = createOutputAccumulator(choice);
      let index = 0;
      // One subscriber forwarding to the operator's own (no map + filter + concatWith hops per chunk); it is added to
      // the subscriber, which keeps the unsubscription chain, so a synchronous firehose sees `closed`.
      source.subscribe(
        createOperatorSubscriber<ChatCompletionChunk>(
          subscriber,
          (chunk) => {
            const message = state.push(chunk);
            if (message !== undefined) subscriber.next({ message, done: false, index: index++ });
          },
          () => {
            const toolCalls = state.finish();
            const message: OutputMessage = { role: 'assistant', content: '' };
            if (toolCalls !== undefined) message.tool_calls = toolCalls;
            const last: LlmClientOutputChunk = { message, done: true, index: index++ };
            if (state.finishReason !== undefined) last.finish_reason = state.finishReason;
            if (state.usage !== undefined) last.usage = state.usage;
            if (state.usageMissing) last.usage_missing = true;
            subscriber.next(last);
          },
        ),
      );
    });
}
