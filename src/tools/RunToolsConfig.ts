import type { Observable } from 'rxjs';
import type { ChatCallOptions } from '../client/createChatClient.js';
import type { RunnableTool } from './RunnableTool.js';
import type { ToolLoopCall, ToolLoopStep } from './ToolLoopEvent.js';

/** Options of {@link runTools}. */
export interface RunToolsConfig {
  /**
   * The tools, by the function name the model calls them by. Their definitions (description, JSON Schema) are sent
   * as the request's `tools` unless the request has its own.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool keeps its own argument type
  tools: Record<string, RunnableTool<any, unknown>>;
  /**
   * The most requests to the model (steps), from 1 to 1000 (default 20, as the AI SDK's): when the model still calls
   * tools at the last one, the loop ends there (`stopReason: 'max_steps'`), with that step's tool results in the
   * conversation — so that the conversation can be sent again to go on.
   */
  maxSteps?: number;
  /** Ends the loop after a step that made tool calls when it returns `true` (`stopReason: 'stop_when'`). */
  stopWhen?: (step: ToolLoopStep) => boolean;
  /**
   * Asked before each valid call runs: `true` runs it; `false` or a string refuses it, and the model is told so (the
   * string is the reason it is given). A value, a Promise or an Observable (its first value). The `needsApproval` of
   * the AI SDK, for a person to confirm or a policy to check.
   */
  approve?: (call: ToolLoopCall) => boolean | string | PromiseLike<boolean | string> | Observable<boolean | string>;
  /** How many calls of one step run at once (default `Infinity`: all); results go to the model in the order it asked. */
  parallel?: number;
  /**
   * A tool that throws (rejects, errors): `'end'` (default) ends the loop with a `ToolExecutionError` naming the tool
   * and the call, after the step's other calls are cancelled; `'report'` tells the model the tool failed (with the
   * error's message) and goes on.
   */
  toolErrors?: 'end' | 'report';
  /**
   * Per-request options passed to the client: `signal` (aborting it ends the loop with `AbortedError`, the tools'
   * signals aborted), `caller`.
   */
  callOptions?: Pick<ChatCallOptions, 'signal' | 'caller'>;
}
