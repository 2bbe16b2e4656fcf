import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Observable } from 'rxjs';
import type { ChatMessage } from '../core/schemas/contract.js';

/** What a tool's `execute` gets beside its arguments. */
export interface ToolContext {
  /** Aborted when the loop is unsubscribed (or its `signal` aborts): stop the work, free what it holds. */
  readonly signal: AbortSignal;
  /** The id of the call being answered, verbatim. */
  readonly toolCallId: string;
  /** The step (request to the model, from 0) that made the call. */
  readonly step: number;
  /**
   * The conversation the step asked the model with (the assistant turn that made the call is not in it yet: a call
   * runs as soon as it is complete, while the model may still write the next).
   */
  readonly messages: readonly ChatMessage[];
}

/**
 * A tool `runTools` can run: what the model is told about it, the schema its arguments must pass, and its
 * implementation. `defineTool` infers the argument type from the schema.
 */
export interface RunnableTool<Schema extends StandardSchemaV1 = StandardSchemaV1, Result = unknown> {
  /** What the tool does, for the model (the function's `description`). */
  readonly description?: string;
  /**
   * The arguments' [Standard Schema](https://standardschema.dev) — zod 4, zod 3.24+, valibot, ArkType: the model's
   * argument text is JSON-parsed and validated by it; a failure is told to the model, which may correct itself.
   */
  readonly schema: Schema;
  /**
   * The arguments' JSON Schema, as the model sees it (the function's `parameters`). Default: the schema's own, when it
   * can say it (zod 4 does: Standard JSON Schema); required for a schema that cannot (zod 3:
   * `zodToJsonSchema(schema)`).
   */
  readonly parameters?: Record<string, unknown>;
  /**
   * Runs the tool. Its result — a value, a Promise or an Observable (its last value; none is `null`) — becomes the
   * `tool` message: a string as it is, anything else as JSON (an array is a value, not a stream). Throwing, rejecting or erroring fails the call (see
   * `RunToolsConfig.toolErrors`).
   */
  execute(args: StandardSchemaV1.InferOutput<Schema>, context: ToolContext): Result | PromiseLike<Result> | Observable<Result>;
  /**
   * The loop ends once this tool has run (after the step's other calls): its result is the loop's last word, and no
   * further request is made (`stopReason: 'tool'`). For "final answer" tools.
   */
  readonly endsLoop?: boolean;
}
