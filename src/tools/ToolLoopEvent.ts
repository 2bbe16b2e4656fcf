import type { ChatMessage, LlmClientOutput, ToolResultFrame } from '../core/schemas/contract.js';
import type { Usage } from '../core/schemas/upstream.js';

/** A complete tool call of a step of {@link runTools}, as its events and hooks see it. */
export interface ToolLoopCall {
  /** The step (request to the model, from 0) that made it. */
  readonly step: number;
  /** The provider's id, verbatim (`''` if it sent none). */
  readonly id: string;
  /** The function called. */
  readonly name: string;
  /** The argument text, verbatim. */
  readonly arguments: string;
  /** The arguments parsed and validated by the tool's schema (its output); absent when they failed or the tool is unknown. */
  readonly input?: unknown;
}

/** One step of the loop: a request to the model, its answer and the answers to its tool calls. */
export interface ToolLoopStep {
  /** The step, from 0. */
  readonly step: number;
  /** Why the model's answer ended (`tool_calls`, `stop`, `length`, …), when it said. */
  readonly finishReason: string | undefined;
  /** The step's token usage, when the provider reported it. */
  readonly usage: Usage | undefined;
  /**
   * The assistant turn, as the next request carries it: `content` (`null` when it only called tools),
   * `reasoning_content` when the model reasoned (DeepSeek's thinking mode and Kimi's thinking models refuse a turn
   * with tool calls sent back without it), `tool_calls` with their ids verbatim.
   */
  readonly message: ChatMessage;
  /** The calls the model made, in its order. */
  readonly toolCalls: readonly ToolLoopCall[];
  /** The `tool` messages answering them, in the same order, each with its `tool_call_id`. */
  readonly toolMessages: readonly ChatMessage[];
}

/** A step begins: a request is about to be sent to the model. */
export interface ToolLoopStepStartEvent {
  /** Discriminant. */
  readonly type: 'step-start';
  /** The step, from 0. */
  readonly step: number;
}

/** A piece of the answer's text. */
export interface ToolLoopTextEvent {
  /** Discriminant. */
  readonly type: 'text';
  /** The step. */
  readonly step: number;
  /** The piece (never empty). */
  readonly text: string;
}

/** A piece of the model's reasoning (reasoning models). */
export interface ToolLoopReasoningEvent {
  /** Discriminant. */
  readonly type: 'reasoning';
  /** The step. */
  readonly step: number;
  /** The piece (never empty). */
  readonly text: string;
}

/** A fragment of a tool call as the model streams it: for showing a call as it is written, never to run it. */
export interface ToolLoopToolCallDeltaEvent {
  /** Discriminant. */
  readonly type: 'tool-call-delta';
  /** The step. */
  readonly step: number;
  /** The fragment's `index` (else its position in the delta's `tool_calls`). */
  readonly index: number;
  /** The call's id, on the fragments that carry it. */
  readonly id?: string;
  /** The function's name, on the fragments that carry it. */
  readonly name?: string;
  /** The piece of the argument text (may be `''`). */
  readonly argumentsDelta: string;
}

/** A tool call, complete and valid, about to be approved and run. */
export interface ToolLoopToolCallEvent {
  /** Discriminant. */
  readonly type: 'tool-call';
  /** The step. */
  readonly step: number;
  /** The call, with its validated `input`. */
  readonly call: ToolLoopCall;
}

/** The answer to one tool call — what the model is told — in the order the model made the calls. */
export interface ToolLoopToolResultEvent {
  /** Discriminant. */
  readonly type: 'tool-result';
  /** The step. */
  readonly step: number;
  /** The call answered. */
  readonly call: ToolLoopCall;
  /** `ok` when the tool ran; else why it did not (see `ToolResultFrame`). */
  readonly outcome: ToolResultFrame['outcome'];
  /** The `tool` message's content. */
  readonly content: string;
  /** The tool's result as it returned it (`outcome: 'ok'`). */
  readonly result?: unknown;
  /** What went wrong: the `ToolCallError` of invalid arguments, the tool's own error (`failed`). */
  readonly error?: unknown;
}

/** A step ended: the model answered and every call it made was answered. */
export interface ToolLoopStepFinishEvent extends ToolLoopStep {
  /** Discriminant. */
  readonly type: 'step-finish';
}

/** Why the loop ended. */
export type ToolLoopStopReason =
  /** The model answered without calling a tool. */
  | 'answer'
  /** `maxSteps` requests were made and the last one still called tools. */
  | 'max_steps'
  /** `stopWhen` returned `true`. */
  | 'stop_when'
  /** A tool with `endsLoop` ran. */
  | 'tool';

/** The loop ended: the last event, once. */
export interface ToolLoopFinishEvent {
  /** Discriminant. */
  readonly type: 'finish';
  /** Why it ended. */
  readonly stopReason: ToolLoopStopReason;
  /**
   * The final answer in the `/chat/json` shape: the last step's message (its text, reasoning, tool calls), its
   * `finish_reason`, and `usage` summed over every step.
   */
  readonly output: LlmClientOutput;
  /** The whole conversation — the request's messages, then every step's assistant turn and tool messages: send it next time. */
  readonly messages: readonly ChatMessage[];
  /** How many steps were made. */
  readonly steps: number;
}

/** Every event of {@link runTools}, discriminated by `type`. */
export type ToolLoopEvent =
  | ToolLoopStepStartEvent
  | ToolLoopTextEvent
  | ToolLoopReasoningEvent
  | ToolLoopToolCallDeltaEvent
  | ToolLoopToolCallEvent
  | ToolLoopToolResultEvent
  | ToolLoopStepFinishEvent
  | ToolLoopFinishEvent;
