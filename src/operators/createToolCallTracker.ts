import type { ToolCallDelta } from '../core/schemas/upstream.js';

/** The state of one tool call of one choice, as its fragments have built it so far. Mutable: internal only. */
export interface TrackedToolCall {
  /** The choice this call belongs to. */
  readonly choiceIndex: number;
  /** Position of the call among its choice's calls (0, 1, …, in order of appearance). */
  readonly ordinal: number;
  /** The provider's id, verbatim; `undefined` until a fragment carried one. */
  id: string | undefined;
  /** The provider's type (`function`, `builtin_function`, …); `undefined` until a fragment carried one. */
  type: string | undefined;
  /** The function name. */
  name: string;
  /** The argument text so far (fragments concatenated). */
  arguments: string;
}

/** What {@link ToolCallTracker.apply} did with one fragment. */
export interface TrackedFragment {
  /** The call the fragment belongs to. */
  readonly call: TrackedToolCall;
  /** True when the fragment started a new call. */
  readonly started: boolean;
  /** True when the fragment changed the call (id, type, name or arguments). */
  readonly changed: boolean;
}

/** Correlates streamed tool-call fragments with the calls they belong to. See {@link createToolCallTracker}. */
export interface ToolCallTracker {
  /**
   * Finds (or starts) the call `fragment` belongs to in `choiceIndex` and merges the fragment into it.
   * `position` and `count` are the fragment's place in its `delta.tool_calls` array and that array's length.
   */
  apply(choiceIndex: number, fragment: ToolCallDelta, position: number, count: number): TrackedFragment;
}

interface ChoiceCalls {
  readonly calls: TrackedToolCall[];
  readonly byId: Map<string, TrackedToolCall>;
  readonly byIndex: Map<number, TrackedToolCall>;
}

/**
 * Creates the correlation core shared by `accumulateDeltas` and `assembleToolCalls`.
 *
 * A fragment belongs to (docs/PROVIDERS.md: Moonshot's `index` is optional):
 * 1. the call with the same `id` in the same choice; a new `id` starts a new call, unless the call at the fragment's
 *    `index` has no id yet (the id then completes it);
 * 2. else the call with the same `index` (the latest call that used that index); an unknown index starts a call;
 * 3. else, when the `tool_calls` array holds several fragments, its position in the array, taken as the index
 *    (calls started without an index are registered under their ordinal);
 * 4. else the latest call of the choice (a lone index-less fragment continues the current call); none yet → a new call.
 *
 * Work per fragment is O(1 + fragment size): arguments grow by `+=` (no copy of what was already accumulated).
 */
export function createToolCallTracker(): ToolCallTracker {
  const choices = new Map<number, ChoiceCalls>();

  const start = (
    state: ChoiceCalls,
    choiceIndex: number,
    id: string | undefined,
    index: number | undefined,
  ): TrackedToolCall => {
    const call: TrackedToolCall = {
      choiceIndex,
      ordinal: state.calls.length,
      id,
      type: undefined,
      name: '',
      arguments: '',
    };
    state.calls.push(call);
    if (id !== undefined) state.byId.set(id, call);
    const key = index ?? call.ordinal;
    if (index !== undefined || !state.byIndex.has(key)) state.byIndex.set(key, call);
    return call;
  };

  /** The call `fragment` (whose id is `id`) belongs to; a call it starts is pushed onto `state.calls`. */
  const locate = (
    state: ChoiceCalls,
    choiceIndex: number,
    id: string | undefined,
    fragment: ToolCallDelta,
    position: number,
    count: number,
  ): TrackedToolCall => {
    const index = typeof fragment.index === 'number' ? fragment.index : count > 1 ? position : undefined;
    if (id !== undefined) {
      const known = state.byId.get(id);
      if (known !== undefined) return known;
      const atIndex = index === undefined ? undefined : state.byIndex.get(index);
      if (atIndex !== undefined && atIndex.id === undefined) return atIndex; // the id completes it (in apply)
      return start(state, choiceIndex, id, index);
    }
    if (index !== undefined) return state.byIndex.get(index) ?? start(state, choiceIndex, undefined, index);
    return state.calls[state.calls.length - 1] ?? start(state, choiceIndex, undefined, undefined);
  };

  return {
    apply(choiceIndex, fragment, position, count) {
      let state = choices.get(choiceIndex);
      if (state === undefined) {
        state = { calls: [], byId: new Map(), byIndex: new Map() };
        choices.set(choiceIndex, state);
      }
      const id = typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : undefined;
      const before = state.calls.length;
      const call = locate(state, choiceIndex, id, fragment, position, count);
      const started = state.calls.length !== before;
      let changed = started;
      if (id !== undefined && call.id === undefined) {
        call.id = id; // a call started without an id gets it now
        state.byId.set(id, call);
        changed = true;
      }
      if (typeof fragment.type === 'string' && fragment.type !== '' && fragment.type !== call.type) {
        call.type = fragment.type;
        changed = true;
      }
      const fn = fragment.function;
      if (fn != null) {
        // A repeated name is a no-op; a different one replaces it (as the official SDK does).
        if (typeof fn.name === 'string' && fn.name !== '' && fn.name !== call.name) {
          call.name = fn.name;
          changed = true;
        }
        if (typeof fn.arguments === 'string' && fn.arguments !== '') {
          call.arguments += fn.arguments;
          changed = true;
        }
      }
      return { call, started, changed };
    },
  };
}
