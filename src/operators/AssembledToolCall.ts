/** A complete tool call, as {@link assembleToolCalls} emits it. Frozen. */
export interface AssembledToolCall {
  /** The provider's id, verbatim (`call_00_…`, `get_weather:0`, …); `''` if the provider never sent one. */
  readonly id: string;
  /** The provider's type, verbatim (`function`, Kimi's `builtin_function`); `'function'` if it never sent one. */
  readonly type: string;
  /** The function and its complete argument text, verbatim. */
  readonly function: {
    /** The function's name. */
    readonly name: string;
    /** Its complete arguments, as JSON text. */
    readonly arguments: string;
  };
  /** The index of the choice the call belongs to (0 unless `n > 1`). */
  readonly choiceIndex: number;
  /** The parsed, validated arguments: present when `schemas` has a schema for this function. */
  readonly parsedArguments?: unknown;
}
