import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { RunnableTool } from './RunnableTool.js';

/**
 * Declares a tool for `runTools`, typing `execute`'s arguments from the schema's output. It returns the tool as it is.
 *
 * ## Example
 * ```ts
 * const getWeather = defineTool({
 *   description: 'The current weather in a city',
 *   schema: z.object({ city: z.string() }),
 *   execute: ({ city }, { signal }) => fetch(`https://wttr.in/${city}?format=j1`, { signal }).then((r) => r.json()),
 * });
 * ```
 *
 * @param tool - The tool: description, argument schema, `execute`.
 * @returns The same object, typed.
 */
export function defineTool<Schema extends StandardSchemaV1, Result>(tool: RunnableTool<Schema, Result>): RunnableTool<Schema, Result> {
  return tool;
}
