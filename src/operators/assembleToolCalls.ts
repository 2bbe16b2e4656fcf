import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError } from '../core/errors.js';
import { createToolCallAssembler } from './createToolCallAssembler.js';
import type { ChatCompletionChunk } from '../core/schemas/upstream.js';
import type { AssembledToolCall } from './AssembledToolCall.js';
import type { AssembleToolCallsConfig } from './AssembleToolCallsConfig.js';

/**
 * Assembles streamed tool-call fragments into complete tool calls, each emitted once, as soon as it is complete.
 *
 * Fragments in, whole calls out: the moment a call can no longer grow, it is emitted.
 *
 * ```text
 * source:          --a------b-------c------d|
 *   a = call_1 starts, b = more arguments of call_1, c = call_2 starts, d = finish_reason 'tool_calls'
 * assembleToolCalls()
 * result:          -----------------1------(2|)
 *   1 = call_1 complete (a different call started), 2 = call_2 complete (its choice finished)
 * ```
 *
 * 1. A call is complete when a different call starts in its choice, when its choice gets a `finish_reason`, or when
 *    the source completes (then the pending calls follow, by choice index). Never because its arguments happen to
 *    parse as JSON: `{"q":"x"}` may still be followed by `,"limit":10}`.
 * 2. Fragments belong to a call by `id`, else `index`, else their position in `delta.tool_calls` (when it holds
 *    several), else to the latest call of the choice — Moonshot's `index` is optional. Choices are kept apart (n > 1).
 * 3. `id`, `type`, name and arguments are passed on verbatim; fragments' argument pieces are concatenated.
 * 4. With `schemas`, a call to a function that has one gets `parsedArguments`, or the stream ends with a
 *    `ToolCallError` (function name and call id in it). A fragment that extends a call already emitted (interleaved
 *    calls) ends the stream with a `StreamProtocolError` rather than emitting a wrong call.
 * 5. A source error passes through unchanged; calls still pending then are not emitted (they may be incomplete).
 * 6. Each subscription has its own state. Unsubscribing unsubscribes the source.
 *
 * ## Example
 * ```ts
 * const Weather = z.object({ city: z.string() });
 * chunks$.pipe(assembleToolCalls({ schemas: { get_weather: Weather } })).subscribe((call) => {
 *   console.log(call.id, call.function.name, call.parsedArguments);
 * });
 * ```
 *
 * @param config - Optional per-function argument schemas.
 * @returns An operator from `ChatCompletionChunk`s to {@link AssembledToolCall}s.
 */
export function assembleToolCalls(
  config: AssembleToolCallsConfig = {},
): OperatorFunction<ChatCompletionChunk, AssembledToolCall> {
  if (typeof config !== 'object' || config === null)
    throw new ConfigError(
      'assembleToolCalls: config must be an object such as `{ schemas: { get_weather: z.object({…}) } }`, or omitted.',
    );
  const { schemas } = config;
  if (schemas !== undefined) {
    if (typeof schemas !== 'object' || schemas === null)
      throw new ConfigError(
        'assembleToolCalls: `schemas` must map function names to zod schemas, e.g. `{ get_weather: z.object({ city: z.string() }) }`.',
      );
    for (const [name, schema] of Object.entries(schemas))
      if (typeof (schema as { '~standard'?: { validate?: unknown } } | null)?.['~standard']?.validate !== 'function')
        throw new ConfigError(
          `assembleToolCalls: schemas.${name} is not a zod schema (nor another Standard Schema: zod 4, zod 3.24+, valibot, ArkType); pass e.g. \`z.object({ … })\`.`,
        );
  }
  return (source) =>
    new Observable<AssembledToolCall>((subscriber) => {
      const assembler = createToolCallAssembler(config);
      const emit = (calls: readonly AssembledToolCall[]): void => {
        for (let i = 0; i < calls.length && !subscriber.closed; i++) subscriber.next(calls[i]!);
      };
      // One hop per chunk (push, and the calls it completed, if any); the pending calls at the end, then complete.
      source.subscribe(
        createOperatorSubscriber<ChatCompletionChunk>(
          subscriber,
          (chunk) => emit(assembler.push(chunk)),
          () => emit(assembler.flush()),
        ),
      );
    });
}
