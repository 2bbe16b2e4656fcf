import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { createAnswerSizeLimit } from './createAnswerSizeLimit.js';
import { createDeltaAccumulator } from './createDeltaAccumulator.js';
import { DEFAULT_MAX_ANSWER_CHARS } from './defaultMaxAnswerChars.js';
import type { ChatCompletion, ChatCompletionChunk } from '../core/schemas/upstream.js';

/** Options of {@link accumulateDeltas}. */
export interface AccumulateDeltasConfig {
  /**
   * The most an answer may hold, counted as it arrives (characters of its text, reasoning, tool calls and log
   * probabilities; see `DEFAULT_MAX_ANSWER_CHARS`, 16 Mi). Past it: `StreamProtocolError('answer_too_large')`, and the
   * source is unsubscribed (the upstream request aborted). `0`: no cap.
   */
  maxAnswerChars?: number;
}

/**
 * Folds streamed chunks into snapshots of the whole answer, each shaped like a non-streaming `chat.completion`.
 *
 * Like `scan`, specialised: deltas in, the answer so far out — `last()` gives the complete answer.
 *
 * ```text
 * source:            --a---------b----------c------|
 *   a = {role:'assistant',content:'你'}, b = {content:'好'}, c = {finish_reason:'stop', usage}
 * accumulateDeltas()
 * result:            --A---------B----------C------|
 *   A.choices[0].message.content = '你', B … = '你好', C … = '你好' with finish_reason 'stop' and usage
 * ```
 *
 * 1. One snapshot per chunk: `{id, object: 'chat.completion', created, model, system_fingerprint?, choices, usage?}`;
 *    each choice `{index, message: {role, content, reasoning_content?, tool_calls?}, logprobs, finish_reason}`.
 *    `id`, `created`, `model`, `system_fingerprint`: the first non-empty value (`''`/`0` until one arrives) — the
 *    rule of every output: Azure's opening `id: ""`, `created: 0` chunk does not count, and a host that changes
 *    `created` mid-stream does not move it.
 * 2. Choices are kept per `index` (n > 1, interleaved chunks) and listed sorted by index.
 * 3. `content`, `reasoning_content` and `refusal` concatenate. Reasoning comes from whichever field the provider
 *    uses — `reasoning_content` (DeepSeek, Kimi, Qwen, xAI), `reasoning` (OpenRouter, Groq, vLLM) or Mistral's
 *    `thinking` content parts — always into `reasoning_content`; a content array's `text` parts are content.
 *    `content` stays `null` until a non-empty content delta arrives (a tools-only answer has `content: null`, as
 *    the official `openai` SDK gives); `reasoning_content` appears with the first reasoning delta, `refusal` with the
 *    first refusal piece, `tool_calls` with the first tool-call fragment.
 * 4. Tool-call fragments are joined per call (by `id`, else `index`, else position, else the latest call — see
 *    `assembleToolCalls`); ids and types are verbatim (`''` / `'function'` when never sent), listed in order of appearance.
 * 5. `finish_reason`: the latest non-empty one (`null` until then). `role`: the latest, `'assistant'` by default.
 * 6. `usage` (top level): the latest non-null usage of the stream, from the chunk's `usage`, else Groq's
 *    `x_groq.usage`, else a choice's `usage` (Moonshot). Never summed, so Moonshot's repeated usage counts once.
 *    Absent until a usage arrives.
 *    Unknown fields of chunks, choices and deltas are kept (latest value wins), e.g. Moonshot's `choices[i].usage`.
 * 7. Snapshots are deeply frozen and never change after emission; unchanged parts are shared with the previous
 *    snapshot. Work per chunk does not grow with the answer: strings grow by `+=`, nothing accumulated is re-copied
 *    (only the `tool_calls` array of a choice whose calls changed, and the list of choices).
 * 8. Errors and completion of the source pass through; each subscription has its own state.
 * 9. Bounded: past `config.maxAnswerChars` (default 16 Mi characters) → `StreamProtocolError('answer_too_large')`,
 *    the source unsubscribed.
 *
 * ## Example
 * ```ts
 * requestCompletion(request, config)
 *   .pipe(parseSse(), decodeChunk(), accumulateDeltas(), last())
 *   .subscribe((completion) => console.log(completion.choices[0]?.message.content, completion.usage));
 * ```
 *
 * @param config - `maxAnswerChars`: the cap of the answer.
 * @returns An operator from `ChatCompletionChunk`s to `ChatCompletion` snapshots, one per chunk.
 * @throws ConfigError when `config.maxAnswerChars` is not a non-negative integer.
 */
export function accumulateDeltas(config: AccumulateDeltasConfig = {}): OperatorFunction<ChatCompletionChunk, ChatCompletion> {
  const maxAnswerChars = config.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
  createAnswerSizeLimit(maxAnswerChars, 'accumulateDeltas'); // a wrong cap is a ConfigError now
  return (source) =>
    new Observable<ChatCompletion>((subscriber) => {
      const accumulator = createDeltaAccumulator();
      const limit = createAnswerSizeLimit(maxAnswerChars, 'accumulateDeltas');
      source.subscribe(
        createOperatorSubscriber<ChatCompletionChunk>(subscriber, (chunk) => {
          limit?.push(chunk);
          subscriber.next(accumulator.push(chunk));
        }),
      );
    });
}
