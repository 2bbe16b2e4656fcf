import type { ZodType } from 'zod';

/** Options of {@link assembleToolCalls}. */
export interface AssembleToolCallsConfig {
  /**
   * Per function name, a zod 4 schema for its arguments. A call to such a function gets its arguments JSON-parsed
   * (blank text reads as `{}`) and validated; the schema's output becomes `parsedArguments`. Invalid JSON or a schema
   * failure ends the stream with a `ToolCallError` naming the function and the call id. Other functions pass as text.
   */
  schemas?: Record<string, ZodType>;
}
