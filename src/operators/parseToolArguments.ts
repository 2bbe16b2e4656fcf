import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ToolCallError } from '../core/errors.js';
import { truncate } from '../core/truncate.js';

/** An issue's path as `a.0.b` (Standard Schema path segments are keys or `{ key }` objects). */
const pathOf = (issue: StandardSchemaV1.Issue): string =>
  (issue.path ?? []).map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment)).join('.');

/** The schema's verdict as the parsed value, or a `ToolCallError` that says what is wrong (for a person or a model). */
const verdict = (name: string, id: string, result: StandardSchemaV1.Result<unknown>): unknown => {
  if (result.issues === undefined) return result.value;
  const issues = result.issues.map((issue) => `${pathOf(issue) || '(root)'}: ${issue.message}`).join('; ');
  throw new ToolCallError(name, `the arguments of tool call "${id}" to "${name}" fail its schema: ${truncate(issues, 300)}`, {
    cause: result.issues,
    toolCallId: id,
  });
};

/**
 * The one validation of a tool call's arguments, shared by `assembleToolCalls` and `runTools`: the argument text is
 * JSON-parsed (blank text reads as `{}`: some providers send `""` for a function without parameters) and validated by
 * a [Standard Schema](https://standardschema.dev) (zod 4, zod 3.24+, valibot, ArkType).
 *
 * @param name - The function's name (for the error).
 * @param id - The tool call's id (for the error).
 * @param text - The complete argument text, verbatim.
 * @param schema - The function's argument schema.
 * @returns `{ value }`: the schema's output; `{ pending }` when the schema validates asynchronously (a Promise of
 *   the output, rejected with the `ToolCallError`).
 * @throws ToolCallError (`tool_arguments_invalid`) for text that is not JSON or fails the schema (an asynchronous schema
 *   rejects with it), naming the function, the call id and each failing path.
 */
export function parseToolArguments(
  name: string,
  id: string,
  text: string,
  schema: StandardSchemaV1,
): { readonly value: unknown } | { readonly pending: Promise<unknown> } {
  let json: unknown;
  try {
    json = text.trim() === '' ? {} : JSON.parse(text);
  } catch (cause) {
    throw new ToolCallError(
      name,
      `the arguments of tool call "${id}" to "${name}" are not valid JSON (${(cause as Error).message}): ${truncate(text, 120)}`,
      { cause, toolCallId: id },
    );
  }
  const result = schema['~standard'].validate(json);
  if (result instanceof Promise) return { pending: result.then((settled) => verdict(name, id, settled)) };
  return { value: verdict(name, id, result) };
}
