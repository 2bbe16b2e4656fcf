import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChunkChoice,
  CompletionChoice,
  ToolCall,
  Usage,
} from '../core/schemas/upstream.js';
import { createToolCallTracker, type TrackedToolCall } from './createToolCallTracker.js';
import { chunkUsage } from './chunkUsage.js';
import { createChunkIdentity } from './createChunkIdentity.js';
import { deltaContent } from './deltaContent.js';
import { deltaReasoning } from './deltaReasoning.js';
import { copyExtraFields } from './copyExtraFields.js';
import { createLogprobsAccumulator, type LogprobsAccumulator } from './createLogprobsAccumulator.js';
import { frozenCopy } from './frozenCopy.js';

/** The pure core of `accumulateDeltas`: one frozen `chat.completion` snapshot per chunk. */
export interface DeltaAccumulator {
  /** Folds `chunk` into the state and returns the new snapshot (deeply frozen; earlier snapshots never change). */
  push(chunk: ChatCompletionChunk): ChatCompletion;
}

type Json = Record<string, unknown>;

// The keys each level reads itself (everything else is kept as a latest-wins extra). A `switch` on the (internalised)
// key is about three times faster than `Set#has` in the `for…in` of every chunk.
const CHUNK_KEYS = (key: string): boolean => {
  switch (key) {
    case 'id':
    case 'object':
    case 'created':
    case 'model':
    case 'system_fingerprint':
    case 'choices':
    case 'usage':
      return true;
    default:
      return false;
  }
};
const CHOICE_KEYS = (key: string): boolean =>
  key === 'index' || key === 'delta' || key === 'finish_reason' || key === 'logprobs';
// `reasoning` is read into `reasoning_content` (deltaReasoning): it is not kept as a latest-wins extra.
const DELTA_KEYS = (key: string): boolean => {
  switch (key) {
    case 'role':
    case 'content':
    case 'reasoning_content':
    case 'reasoning':
    case 'refusal':
    case 'tool_calls':
      return true;
    default:
      return false;
  }
};
const EMPTY_CHOICES: readonly CompletionChoice[] = Object.freeze([]);

interface ChoiceState {
  readonly index: number;
  role: string;
  content: string | null;
  reasoning: string | undefined;
  refusal: string | undefined;
  finishReason: string | null;
  toolCalls: readonly ToolCall[] | undefined;
  /** The same calls in a mutable array, never emitted: copying a frozen array (`slice`) is ~8× slower in V8. */
  toolCallList: ToolCall[] | undefined;
  logprobs: LogprobsAccumulator | undefined;
  logprobsView: unknown;
  messageExtras: Json | undefined;
  extras: Json | undefined;
  snapshot: CompletionChoice | undefined;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

function toolCallOf(call: TrackedToolCall): ToolCall {
  return Object.freeze({
    id: call.id ?? '',
    type: call.type ?? 'function',
    function: Object.freeze({ name: call.name, arguments: call.arguments }),
  });
}

/**
 * Creates a {@link DeltaAccumulator}. Work per chunk is O(size of the chunk + number of choices + number of tool calls
 * of the choices it touches): strings grow with `+=`, unchanged choices and tool calls are shared (by reference)
 * with the previous snapshot, and nothing accumulated so far is copied.
 */
export function createDeltaAccumulator(): DeltaAccumulator {
  const tracker = createToolCallTracker();
  const states = new Map<number, ChoiceState>();
  const ordered: ChoiceState[] = []; // sorted by index
  let choices: readonly CompletionChoice[] = EMPTY_CHOICES;
  const identity = createChunkIdentity();
  let usage: Usage | undefined;
  let extras: Json | undefined;

  const stateOf = (index: number): ChoiceState => {
    const only = ordered.length === 1 ? ordered[0]! : undefined; // one choice (n = 1): no map lookup
    if (only !== undefined && only.index === index) return only;
    let state = states.get(index);
    if (state !== undefined) return state;
    state = {
      index,
      role: 'assistant',
      content: null,
      reasoning: undefined,
      refusal: undefined,
      finishReason: null,
      toolCalls: undefined,
      toolCallList: undefined,
      logprobs: undefined,
      logprobsView: null,
      messageExtras: undefined,
      extras: undefined,
      snapshot: undefined,
    };
    states.set(index, state);
    let at = ordered.length;
    while (at > 0 && ordered[at - 1]!.index > index) at--;
    ordered.splice(at, 0, state);
    return state;
  };

  /** Folds one choice of a chunk into its state; true if the choice's snapshot must be rebuilt. */
  const fold = (state: ChoiceState, choice: ChunkChoice): boolean => {
    let changed = state.snapshot === undefined;
    if (isText(choice.finish_reason) && choice.finish_reason !== state.finishReason) {
      state.finishReason = choice.finish_reason;
      changed = true;
    }
    const extras = copyExtraFields(choice, CHOICE_KEYS, state.extras);
    if (extras !== undefined) {
      state.extras = extras;
      changed = true;
    }
    const logprobs = choice.logprobs as { content?: unknown; refusal?: unknown } | null | undefined;
    if (typeof logprobs === 'object' && logprobs !== null) {
      const accumulated = (state.logprobs ??= createLogprobsAccumulator());
      accumulated.push(logprobs);
      state.logprobsView = accumulated.view();
      changed = true;
    }
    const delta = choice.delta;
    if (delta == null) return changed;
    if (isText(delta.role) && delta.role !== state.role) {
      state.role = delta.role;
      changed = true;
    }
    const text = deltaContent(delta);
    if (text !== '') {
      state.content = state.content === null ? text : state.content + text;
      changed = true;
    }
    const reasoning = deltaReasoning(delta);
    if (reasoning !== undefined && (reasoning !== '' || state.reasoning === undefined)) {
      state.reasoning = state.reasoning === undefined ? reasoning : state.reasoning + reasoning;
      changed = true;
    }
    const refusal = delta.refusal;
    if (isText(refusal)) {
      state.refusal = state.refusal === undefined ? refusal : state.refusal + refusal;
      changed = true;
    }
    const fragments = delta.tool_calls;
    if (fragments != null && fragments.length > 0) {
      let grown = false;
      for (let p = 0; p < fragments.length; p++) {
        const { call, started, changed: grew } = tracker.apply(state.index, fragments[p]!, p, fragments.length);
        if (!started && !grew) continue;
        (state.toolCallList ??= [])[call.ordinal] = toolCallOf(call);
        grown = true;
      }
      if (grown) {
        state.toolCalls = Object.freeze(state.toolCallList!.slice());
        changed = true;
      }
    }
    const messageExtras = copyExtraFields(delta, DELTA_KEYS, state.messageExtras);
    if (messageExtras !== undefined) {
      state.messageExtras = messageExtras;
      changed = true;
    }
    return changed;
  };

  const snapshotOf = (state: ChoiceState): CompletionChoice => {
    const message: Json = { role: state.role, content: state.content };
    if (state.reasoning !== undefined) message.reasoning_content = state.reasoning;
    if (state.toolCalls !== undefined) message.tool_calls = state.toolCalls;
    if (state.refusal !== undefined) message.refusal = state.refusal;
    if (state.messageExtras !== undefined)
      for (const key of Object.keys(state.messageExtras)) message[key] = state.messageExtras[key];
    const choice: Json = {
      index: state.index,
      message: Object.freeze(message),
      logprobs: state.logprobsView,
      finish_reason: state.finishReason,
    };
    if (state.extras !== undefined) for (const key of Object.keys(state.extras)) choice[key] = state.extras[key];
    return Object.freeze(choice) as CompletionChoice;
  };

  return {
    push(chunk) {
      identity.note(chunk);
      extras = copyExtraFields(chunk, CHUNK_KEYS, extras) ?? extras;
      let choiceUsage: Usage | undefined;
      let rebuilt = false;
      const chunkChoices = chunk.choices ?? [];
      for (let c = 0; c < chunkChoices.length; c++) {
        const choice = chunkChoices[c]!;
        if (choice.usage != null) choiceUsage = choice.usage;
        const state = stateOf(choice.index ?? c);
        if (fold(state, choice)) {
          state.snapshot = snapshotOf(state);
          rebuilt = true;
        }
      }
      // Latest usage wins, never summed: Moonshot repeats the choice's usage in a final `choices: []` chunk.
      const latestUsage = chunkUsage(chunk) ?? choiceUsage;
      if (latestUsage !== undefined) usage = frozenCopy(latestUsage);
      if (rebuilt)
        choices = Object.freeze(ordered.length === 1 ? [ordered[0]!.snapshot!] : ordered.map((state) => state.snapshot!));
      // One literal per shape (no fingerprint: the common case), so V8 builds it without map transitions.
      const snapshot: Json =
        identity.fingerprint === undefined
          ? {
              id: identity.id ?? '',
              object: 'chat.completion',
              created: identity.created ?? 0,
              model: identity.model ?? '',
              choices,
            }
          : {
              id: identity.id ?? '',
              object: 'chat.completion',
              created: identity.created ?? 0,
              model: identity.model ?? '',
              system_fingerprint: identity.fingerprint,
              choices,
            };
      if (usage !== undefined) snapshot.usage = usage;
      if (extras !== undefined) for (const key of Object.keys(extras)) snapshot[key] = extras[key];
      return Object.freeze(snapshot) as ChatCompletion;
    },
  };
}
