import type { StandardJSONSchemaV1 } from '@standard-schema/spec';
import { ConfigError } from '../core/errors.js';
import type { ToolDefinition } from '../core/schemas/upstream.js';
import type { RunnableTool } from './RunnableTool.js';

/**
 * The request's `tools` for the loop's tools: each a `function` with its name, description and `parameters` — the
 * tool's own `parameters`, else the JSON Schema its schema says of its input (Standard JSON Schema, draft-07: zod 4).
 *
 * @throws ConfigError for a tool whose schema cannot say its JSON Schema and that has no `parameters`.
 */
export function toolDefinitions(tools: Readonly<Record<string, RunnableTool>>): ToolDefinition[] {
  return Object.entries(tools).map(([name, tool]) => {
    let parameters = tool.parameters;
    if (parameters === undefined) {
      const converter = (tool.schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
      if (typeof converter?.input !== 'function') {
        throw new ConfigError(
          `runTools: the schema of tools.${name} cannot say its JSON Schema (zod 3 cannot; zod 4 can): give the tool \`parameters\` too, e.g. \`parameters: zodToJsonSchema(schema)\`, or put \`tools\` in the request.`,
        );
      }
      const { $schema: _dialect, ...schema } = converter.input({ target: 'draft-07' });
      parameters = schema;
    }
    const fn: { name: string; description?: string; parameters: unknown } = { name, parameters };
    if (tool.description !== undefined) fn.description = tool.description;
    return { type: 'function', function: fn };
  });
}
