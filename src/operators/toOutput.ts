import { defer, map, reduce, type OperatorFunction } from 'rxjs';
import { ConfigError } from '../core/errors.js';
import { createAnswerSizeLimit } from './createAnswerSizeLimit.js';
import { createOutputAccumulator } from './createOutputAccumulator.js';
import { DEFAULT_MAX_ANSWER_CHARS } from './defaultMaxAnswerChars.js';
import type { LlmClientOutput, OutputMessage } from '../core/schemas/contract.js';
import type { ChatCompletionChunk, ToolCall } from '../core/schemas/upstream.js';
import type { ToOutputChunksConfig } from './toOutputChunks.js';

/** Options of {@link toOutput}. */
export interface ToOutputConfig extends ToOutputChunksConfig {
  /**
   * The most an answer may hold, counted as it arrives (characters of its text, reasoning, tool calls and log
   * probabilities; see `DEFAULT_MAX_ANSWER_CHARS`, 16 Mi). Past it: `StreamProtocolError('answer_too_large')`, and the
   * source is unsubscribed (the upstream request aborted). `0`: no cap.
   */
  maxAnswerChars?: number;
}

/**
 * Reduces upstream chunks to the contract's one answer: the body of `/chat/json` (a `Mono<LlmClientOutput>`).
 *
 * ```text
 * source:     --a--b--c--|          a: "Hel", b: "lo", c: finish_reason "stop" + usage
 * toOutput(): -----------(O|)       O: {id, model, created, message:{role:"assistant",content:"Hello"},
 *                                       done:true, finish_reason:"stop", usage}
 * ```
 *
 * 1. Emits exactly one value, when the source completes (after `[DONE]`, or at a clean end after every
 *    `finish_reason`: see `decodeChunk`), then completes.
 * 2. `id`, `model` and `created` are the first non-empty ones the stream carried (Azure's opening `id: ""`,
 *    `created: 0` chunk does not count; `''`, `''` and the current Unix time when it carried none).
 *    `message.content` is all the text (`''` when the model only called tools or refused).
 * 3. Optional extensions, present only when there is something to say: `message.reasoning_content` (all the
 *    reasoning, from `reasoning_content`, `reasoning` or `thinking` parts), `message.refusal` (a refusal, instead of
 *    content), `message.tool_calls` (assembled, ids verbatim), `finish_reason`, `usage` (counted once: top level,
 *    `x_groq.usage` or the choice's own), `usage_missing` (usage was asked for and never came).
 * 4. Several choices (a request with `n` > 1): the answer is one choice, `config.choice` (default 0), as in
 *    {@link toOutputChunks}: its text, reasoning, tool calls and finish reason. The other choices' chunks are read and
 *    dropped — the upstream generated, and bills, every one of them — and `usage`, when the provider reports it for
 *    the whole response (OpenAI's last chunk), counts all their tokens. No error says so: the contract has one message.
 *    To keep every choice, use {@link accumulateDeltas} (all choices, by index), or one `toOutput({ choice: i })` per
 *    choice over a shared source; to pay for one, ask for `n: 1` (the chat endpoints refuse `n` > 1 unless the server
 *    sets `allowSeveralChoices`).
 * 5. Errors: `finish_reason: insufficient_system_resource` → {@link AnswerFailedError} at once; a source that
 *    completes without any chunk → {@link StreamProtocolError} `stream_incomplete`; source errors pass through (a
 *    stream cut before `[DONE]` is `decodeChunk`'s error).
 * 6. Linear: text pieces are collected and joined once at the end; no snapshot per chunk.
 * 7. Bounded: past `config.maxAnswerChars` (default 16 Mi characters) → `StreamProtocolError('answer_too_large')`
 *    at once, the source unsubscribed — an upstream that never stops cannot grow the heap without end.
 *
 * ## Example
 * ```ts
 * const answer: Mono<LlmClientOutput> = bytes$.pipe(parseSse(), decodeChunk(), toOutput());
 * answer.subscribe((output) => res.json(output));
 * ```
 *
 * @param config - `choice`: the choice to keep when n > 1 (default 0); `maxAnswerChars`: the cap of the answer.
 * @returns An operator from upstream chunks to one `LlmClientOutput`.
 * @throws ConfigError when `config.choice` or `config.maxAnswerChars` is not a non-negative integer.
 */
export function toOutput(config: ToOutputConfig = {}): OperatorFunction<ChatCompletionChunk, LlmClientOutput> {
  const choice = config.choice ?? 0;
  if (!Number.isInteger(choice) || choice < 0) {
    throw new ConfigError(
      `toOutput: \`choice\` must be a non-negative integer (a choice index), got ${String(choice)}.`,
    );
  }
  const maxAnswerChars = config.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
  createAnswerSizeLimit(maxAnswerChars, 'toOutput'); // a wrong cap is a ConfigError now
  return (source) =>
    defer(() => {
      const limit = createAnswerSizeLimit(maxAnswerChars, 'toOutput');
      const state = createOutputAccumulator(choice);
      const content: string[] = [];
      const reasoning: string[] = [];
      const refusal: string[] = [];
      let toolCalls: ToolCall[] | undefined;
      return source.pipe(
        reduce((count: number, chunk: ChatCompletionChunk) => {
          limit?.push(chunk);
          const step = state.push(chunk);
          if (step !== undefined) {
            if (step.content !== '') content.push(step.content);
            if (step.reasoning_content !== undefined) reasoning.push(step.reasoning_content);
            if (step.refusal !== undefined) refusal.push(step.refusal);
            if (step.tool_calls !== undefined) (toolCalls ??= []).push(...step.tool_calls);
          }
          return count + 1;
        }, 0),
        map((): LlmClientOutput => {
          const last = state.finish();
          if (last !== undefined) (toolCalls ??= []).push(...last);
          const message: OutputMessage = { role: 'assistant', content: content.join('') };
          if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
          if (refusal.length > 0) message.refusal = refusal.join('');
          if (toolCalls !== undefined) message.tool_calls = toolCalls;
          const output: LlmClientOutput = {
            id: state.id ?? '',
            model: state.model ?? '',
            created: state.created ?? Math.floor(Date.now() / 1000),
            message,
            done: true,
          };
          if (state.finishReason !== undefined) output.finish_reason = state.finishReason;
          if (state.usage !== undefined) output.usage = state.usage;
          if (state.usageMissing) output.usage_missing = true;
          return output;
        }),
      );
    });
}
