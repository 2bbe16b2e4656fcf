import { AnswerFailedError, StreamProtocolError } from '../core/errors.js';
import type { AssembledToolCall } from './AssembledToolCall.js';
import type { OutputMessage } from '../core/schemas/contract.js';
import type { ChatCompletionChunk, ToolCall, Usage } from '../core/schemas/upstream.js';
import { chunkUsage } from './chunkUsage.js';
import { createChunkIdentity } from './createChunkIdentity.js';
import { createToolCallAssembler, type ToolCallAssembler } from './createToolCallAssembler.js';
import { deltaContent } from './deltaContent.js';
import { deltaReasoning } from './deltaReasoning.js';

/** The per-subscription state shared by `toOutputChunks` and `toOutput`. See {@link createOutputAccumulator}. */
export interface OutputAccumulator {
  /**
   * Reads one chunk; returns what the followed choice says in it as the contract's message (its new text, in the
   * key order the wire writes: `role`, `content`, `reasoning_content`, `refusal`, `tool_calls`), or `undefined` when
   * it says nothing. The message is the caller's: made once, not a step object to be taken apart.
   */
  push(chunk: ChatCompletionChunk): OutputMessage | undefined;
  /** At the end of the stream: the tool calls still open (now complete), or `undefined`; throws if no chunk came. */
  finish(): ToolCall[] | undefined;
  /** The last non-empty `finish_reason` of the followed choice. */
  readonly finishReason: string | undefined;
  /** The last usage seen (top level, `x_groq.usage`, or inside the followed choice as Moonshot sends it): counted once. */
  readonly usage: Usage | undefined;
  /** True when `decodeChunk` reported that the usage the request asked for never came (the stream ended without `[DONE]`). */
  readonly usageMissing: boolean;
  /** The first non-empty `id` the stream carried. */
  readonly id: string | undefined;
  /** The first non-empty `model` the stream carried. */
  readonly model: string | undefined;
  /** The first positive `created` the stream carried. */
  readonly created: number | undefined;
}

const FAILED_FINISH_REASONS: ReadonlySet<string> = new Set(['insufficient_system_resource']);

/**
 * Creates the reduction behind `toOutputChunks` and `toOutput`: it follows one choice of a chunk stream, and keeps
 * only what the outputs need (the finish reason, usage once, the stream's identity).
 *
 * 1. A choice is matched by its `index`, else by its position in `choices` (n > 1: other choices are ignored, and so
 *    is a top-level usage on their chunks).
 * 2. Text, reasoning and refusal are read by the rules every output shares: `deltaContent` (a string, or a content
 *    array's `text` parts), `deltaReasoning` (`reasoning_content`, else `reasoning`, else `thinking` parts), and
 *    `refusal`. Empty pieces, role-only deltas and `delta: {}` say nothing.
 * 3. `finish_reason` `''` counts as absent; `insufficient_system_resource` throws an {@link AnswerFailedError}.
 * 4. Tool calls go through the shared assembler, created at the first tool-call fragment (plain text streams never
 *    pay for it); only complete calls come out, as `{id, type, function: {name, arguments}}`.
 * 5. `id`, `model`, `created`: the first non-empty values (`createChunkIdentity`). Usage: the top level, else
 *    `x_groq.usage`, else the followed choice's own.
 * 6. O(1) work per chunk besides the assembler; nothing is copied.
 */
export function createOutputAccumulator(choice: number): OutputAccumulator {
  return new Accumulator(choice);
}

/**
 * The accumulator as a class: its getters live on the prototype, so every instance shares one hidden class (an object
 * literal with its own getter closures gets a hidden class, descriptors and accessor pairs of its own, about 1 KB per
 * stream).
 */
class Accumulator implements OutputAccumulator {
  #finishReason: string | undefined;
  #usage: Usage | undefined;
  #usageMissing = false;
  readonly #identity = createChunkIdentity();
  #chunks = 0;
  #assembler: ToolCallAssembler | undefined;

  readonly #choice: number;

  constructor(choice: number) {
    this.#choice = choice;
  }

  #ours(calls: readonly AssembledToolCall[]): ToolCall[] | undefined {
    const choice = this.#choice;
    let out: ToolCall[] | undefined;
    for (const call of calls) {
      if (call.choiceIndex !== choice) continue;
      (out ??= []).push({
        id: call.id,
        type: call.type,
        function: { name: call.function.name, arguments: call.function.arguments },
      });
    }
    return out;
  }

  push(chunk: ChatCompletionChunk): OutputMessage | undefined {
    const choice = this.#choice;
    this.#chunks += 1;
    this.#identity.note(chunk);
    let content = '';
    let reasoning = '';
    let refusal = '';
    let hasToolFragments = false;
    let matched = false;
    let choiceUsage: Usage | undefined;
    const { choices } = chunk;
    for (let position = 0; position < choices.length; position++) {
      const current = choices[position]!;
      const delta = current.delta;
      if (delta?.tool_calls?.length) hasToolFragments = true;
      if ((current.index ?? position) !== choice) continue;
      matched = true;
      if (delta) {
        content += deltaContent(delta);
        reasoning += deltaReasoning(delta) ?? '';
        if (typeof delta.refusal === 'string') refusal += delta.refusal;
      }
      if (current.usage) choiceUsage = current.usage;
      if (current.finish_reason) {
        const finishReason = current.finish_reason;
        this.#finishReason = finishReason;
        if (FAILED_FINISH_REASONS.has(finishReason)) {
          throw new AnswerFailedError(
            finishReason,
            `the upstream answer failed with finish_reason "${finishReason}"`,
          );
        }
      }
    }
    // A top-level usage belongs to us on our choice's chunk or on a usage-only chunk (`choices: []`); on another
    // choice's chunk it is that choice's (decodeChunk copies Moonshot's per-choice usage up).
    if (choiceUsage) this.#usage = choiceUsage;
    else if (matched || choices.length === 0) this.#usage = chunkUsage(chunk) ?? this.#usage;
    if (choices.length === 0 && (chunk as { usage_missing?: unknown }).usage_missing === true) this.#usageMissing = true;
    if (hasToolFragments) this.#assembler ??= createToolCallAssembler();
    const assembler = this.#assembler;
    const toolCalls = assembler ? this.#ours(assembler.push(chunk)) : undefined;
    if (content === '' && reasoning === '' && refusal === '' && toolCalls === undefined) return undefined;
    const message: OutputMessage = { role: 'assistant', content };
    if (reasoning !== '') message.reasoning_content = reasoning;
    if (refusal !== '') message.refusal = refusal;
    if (toolCalls !== undefined) message.tool_calls = toolCalls;
    return message;
  }

  finish(): ToolCall[] | undefined {
    if (this.#chunks === 0) throw new StreamProtocolError('stream_incomplete', 'the upstream stream ended without any chunk');
    const assembler = this.#assembler;
    return assembler ? this.#ours(assembler.flush()) : undefined;
  }

  get finishReason(): string | undefined {
    return this.#finishReason;
  }

  get usage(): Usage | undefined {
    return this.#usage;
  }

  get usageMissing(): boolean {
    return this.#usageMissing && this.#usage === undefined;
  }

  get id(): string | undefined {
    return this.#identity.id;
  }

  get model(): string | undefined {
    return this.#identity.model;
  }

  get created(): number | undefined {
    return this.#identity.created;
  }
}
