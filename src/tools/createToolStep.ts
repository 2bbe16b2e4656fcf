import type { ChatMessage, LlmClientOutput, OutputMessage } from '../core/schemas/contract.js';
import type { ChatCompletionChunk, ToolCall, Usage } from '../core/schemas/upstream.js';
import { createOutputAccumulator } from '../operators/createOutputAccumulator.js';
import type { ToolLoopEvent, ToolLoopToolCallDeltaEvent } from './ToolLoopEvent.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What one step's answer came to, once its stream ended. */
export interface ToolStepEnd {
  /** The assistant turn, as the next request carries it (see `ToolLoopStep.message`). */
  readonly message: ChatMessage;
  /** The answer in the `/chat/json` shape (this step's usage). */
  readonly output: LlmClientOutput;
  /** The complete tool calls, in the model's order (ids verbatim). */
  readonly calls: readonly ToolCall[];
  /** Why the answer ended. */
  readonly finishReason: string | undefined;
  /** The step's usage. */
  readonly usage: Usage | undefined;
}

/** The pure core of one step of `runTools`: chunks in, events out, and the step's answer at the end. */
export interface ToolStep {
  /** Reads one chunk; returns its events (reasoning, text, tool-call fragments), in that order. */
  push(chunk: ChatCompletionChunk): readonly ToolLoopEvent[];
  /** The tool calls completed since the last take (by `push` or `finish`), in the model's order: each once. */
  takeCalls(): readonly ToolCall[];
  /** The end of the stream: the step's answer. Throws as `toOutput` does when no chunk came. */
  finish(): ToolStepEnd;
}

const NONE: readonly ToolLoopEvent[] = Object.freeze([]);

/**
 * Creates the reduction of one step of the tool loop. It follows choice 0 with the accumulator `toOutput` and
 * `toOutputChunks` share (`createOutputAccumulator`: the same text, reasoning, tool-call assembly — fragments kept
 * apart by `id` even at a reused `index` — finish reason and usage), reports the raw tool-call fragments of that
 * choice as they come, and hands out each call as soon as it is complete (`takeCalls`), so that it can run while the
 * model still writes the next.
 *
 * @param step - The step's number, for its events.
 */
export function createToolStep(step: number): ToolStep {
  const state = createOutputAccumulator(0);
  const content: string[] = [];
  const reasoning: string[] = [];
  const refusal: string[] = [];
  const calls: ToolCall[] = [];
  let taken = 0;

  const fragmentsOf = (chunk: ChatCompletionChunk): ToolLoopToolCallDeltaEvent[] | undefined => {
    const choices = chunk.choices;
    for (let c = 0; c < choices.length; c++) {
      const choice = choices[c]!;
      if ((choice.index ?? c) !== 0) continue;
      const fragments = choice.delta?.tool_calls;
      if (fragments == null || fragments.length === 0) return undefined;
      return fragments.map((fragment, position) => {
        const event: Mutable<ToolLoopToolCallDeltaEvent> = {
          type: 'tool-call-delta',
          step,
          index: typeof fragment.index === 'number' ? fragment.index : position,
          argumentsDelta: typeof fragment.function?.arguments === 'string' ? fragment.function.arguments : '',
        };
        if (typeof fragment.id === 'string' && fragment.id !== '') event.id = fragment.id;
        const name = fragment.function?.name;
        if (typeof name === 'string' && name !== '') event.name = name;
        return event;
      });
    }
    return undefined;
  };

  return {
    takeCalls() {
      if (taken === calls.length) return [];
      const fresh = calls.slice(taken);
      taken = calls.length;
      return fresh;
    },
    push(chunk) {
      const said: OutputMessage | undefined = state.push(chunk);
      const fragments = fragmentsOf(chunk);
      if (said === undefined && fragments === undefined) return NONE;
      const out: ToolLoopEvent[] = [];
      if (said !== undefined) {
        if (said.reasoning_content !== undefined && said.reasoning_content !== '') {
          reasoning.push(said.reasoning_content);
          out.push({ type: 'reasoning', step, text: said.reasoning_content });
        }
        if (said.content !== '') {
          content.push(said.content);
          out.push({ type: 'text', step, text: said.content });
        }
        if (said.refusal !== undefined) refusal.push(said.refusal);
        if (said.tool_calls !== undefined) calls.push(...said.tool_calls);
      }
      if (fragments !== undefined) out.push(...fragments);
      return out;
    },
    finish() {
      const rest = state.finish();
      if (rest !== undefined) calls.push(...rest);
      const text = content.join('');
      const thought = reasoning.length > 0 ? reasoning.join('') : undefined;
      const said: OutputMessage = { role: 'assistant', content: text };
      if (thought !== undefined) said.reasoning_content = thought;
      if (refusal.length > 0) said.refusal = refusal.join('');
      if (calls.length > 0) said.tool_calls = calls;
      const output: LlmClientOutput = {
        id: state.id ?? '',
        model: state.model ?? '',
        created: state.created ?? Math.floor(Date.now() / 1000),
        message: said,
        done: true,
      };
      if (state.finishReason !== undefined) output.finish_reason = state.finishReason;
      if (state.usage !== undefined) output.usage = state.usage;
      // The turn as providers take it back: no text is `null` beside tool calls; the reasoning stays with its calls.
      const message: ChatMessage = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
      if (thought !== undefined) message.reasoning_content = thought;
      if (calls.length > 0) message.tool_calls = calls.map(({ id, type, function: fn }) => ({ id, type, function: { name: fn.name, arguments: fn.arguments } }));
      return { message, output, calls, finishReason: state.finishReason, usage: state.usage };
    },
  };
}
