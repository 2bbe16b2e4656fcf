import type { StandardSchemaV1 } from '@standard-schema/spec';

/** Options of {@link assembleToolCalls}. */
export interface AssembleToolCallsConfig {
  /**
   * Per function name, a schema for its arguments: any [Standard Schema](https://standardschema.dev) that validates
   * synchronously — zod 4 or zod 3 (3.24 and later), valibot, ArkType. A call to such a function gets its arguments
   * JSON-parsed (blank text reads as `{}`) and validated; the schema's output becomes `parsedArguments`. Invalid
   * JSON or a schema failure ends the stream with a `ToolCallError` naming the function and the call id. Other
   * functions pass as text.
   */
  schemas?: Record<string, StandardSchemaV1>;
}
