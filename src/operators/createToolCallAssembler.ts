import { StreamProtocolError, ToolCallError } from '../core/errors.js';
import type { AssembledToolCall } from './AssembledToolCall.js';
import type { AssembleToolCallsConfig } from './AssembleToolCallsConfig.js';
import type { ChatCompletionChunk } from '../core/schemas/upstream.js';
import { createToolCallTracker, type TrackedToolCall } from './createToolCallTracker.js';
import { truncate } from '../core/truncate.js';
import { parseToolArguments } from './parseToolArguments.js';

/** The pure core of `assembleToolCalls`: feed it chunks, get each tool call once, complete. */
export interface ToolCallAssembler {
  /**
   * Takes the next chunk; returns the calls that became complete with it (a different call started in their choice,
   * or their choice got a `finish_reason`), in order. Returns a shared frozen empty array when none did.
   * @throws ToolCallError when a completed call's arguments fail their configured schema (or are not JSON).
   * @throws StreamProtocolError when a fragment extends a call that was already complete (interleaved calls).
   */
  push(chunk: ChatCompletionChunk): readonly AssembledToolCall[];
  /** The end of the stream: returns the calls still pending (by choice index, then order), validated like `push`. */
  flush(): readonly AssembledToolCall[];
}

const NONE: readonly AssembledToolCall[] = Object.freeze([]);

/**
 * Creates a {@link ToolCallAssembler}. Completeness is decided by the stream, never by the arguments happening to
 * parse as JSON (a prefix such as `{"q":"x"}` can be valid JSON before `,"limit":10}` arrives).
 *
 * @param config `schemas`: per function name, a Standard Schema (zod 3 or 4, …) for the parsed arguments.
 */
export function createToolCallAssembler(config: AssembleToolCallsConfig = {}): ToolCallAssembler {
  const schemas = config.schemas ?? {};
  const tracker = createToolCallTracker();
  /** Per choice, the one call still pending (calls of a choice come one after another). */
  const current = new Map<number, TrackedToolCall>();
  const done = new WeakSet<TrackedToolCall>();

  const complete = (call: TrackedToolCall): AssembledToolCall => {
    done.add(call);
    const id = call.id ?? '';
    const name = call.name;
    const base = {
      id,
      type: call.type ?? 'function',
      function: Object.freeze({ name, arguments: call.arguments }),
      choiceIndex: call.choiceIndex,
    };
    const schema = Object.prototype.hasOwnProperty.call(schemas, name) ? schemas[name] : undefined;
    if (schema === undefined) return Object.freeze(base);
    const parsed = parseToolArguments(name, id, call.arguments, schema);
    if ('pending' in parsed) {
      parsed.pending.catch(() => undefined); // not waited for: its verdict must not become an unhandled rejection
      throw new ToolCallError(name, `the schema of "${name}" validates asynchronously, which assembleToolCalls cannot wait for: use a synchronous schema (no async refinements).`, {
        toolCallId: id,
      });
    }
    return Object.freeze({ ...base, parsedArguments: parsed.value });
  };

  return {
    push(chunk) {
      let out: AssembledToolCall[] | undefined;
      const choices = chunk.choices;
      for (let c = 0; c < choices.length; c++) {
        const choice = choices[c]!;
        const choiceIndex = choice.index ?? c;
        const fragments = choice.delta?.tool_calls;
        if (fragments != null) {
          for (let p = 0; p < fragments.length; p++) {
            const { call, started, changed } = tracker.apply(choiceIndex, fragments[p]!, p, fragments.length);
            if (started) {
              const previous = current.get(choiceIndex);
              if (previous !== undefined && !done.has(previous)) (out ??= []).push(complete(previous));
              current.set(choiceIndex, call);
            } else if (changed && done.has(call)) {
              throw new StreamProtocolError(
                'schema_violation',
                `a fragment for tool call "${call.id ?? call.ordinal}" of choice ${choiceIndex} arrived after the call was complete ` +
                  '(interleaved tool-call fragments are not supported)',
                { snippet: truncate(JSON.stringify(fragments[p]), 200) },
              );
            }
          }
        }
        if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
          const pending = current.get(choiceIndex);
          if (pending !== undefined && !done.has(pending)) (out ??= []).push(complete(pending));
        }
      }
      return out ?? NONE;
    },
    flush() {
      let out: AssembledToolCall[] | undefined;
      const indexes = [...current.keys()].sort((a, b) => a - b);
      for (const choiceIndex of indexes) {
        const pending = current.get(choiceIndex)!;
        if (!done.has(pending)) (out ??= []).push(complete(pending));
      }
      return out ?? NONE;
    },
  };
}
