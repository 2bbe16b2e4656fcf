import { isDeepStrictEqual } from 'node:util';
import type { AnswerView, OutputView } from './runPipelines';

/** A manifest entry's `expect` (see ../shared/real-streams/README.md): what the recording project asserts. */
export interface CorpusExpect {
  content?: string;
  reasoning_content?: string;
  refusal?: string;
  finish_reason?: string;
  usage?: Record<string, number>;
  tool_calls?: Array<{ id?: string; name?: string; arguments?: string }>;
  choices?: Array<{ index: number; content?: string; finish_reason?: string }>;
  content_contains_all?: string[];
  tool_call_names?: string[];
  tool_call_arguments?: string[];
}

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
};

/** Checks one answer against the expectations that concern one choice; returns the failures. */
function checkAnswer(answer: AnswerView | undefined, expect: CorpusExpect, where: string): string[] {
  if (answer === undefined) return [`${where}: no answer for this choice`];
  const failures: string[] = [];
  const same = (field: string, actual: unknown, expected: unknown): void => {
    if (!isDeepStrictEqual(actual, expected))
      failures.push(`${where}: ${field} is ${show(actual)}, expected ${show(expected)}`);
  };
  if (expect.content !== undefined) same('content', answer.content, expect.content);
  if (expect.reasoning_content !== undefined) same('reasoning_content', answer.reasoning, expect.reasoning_content);
  if (expect.refusal !== undefined) same('refusal', answer.refusal, expect.refusal);
  if (expect.finish_reason !== undefined) same('finish_reason', answer.finishReason, expect.finish_reason);
  if (expect.usage !== undefined) {
    const usage = answer.usage as Record<string, unknown> | undefined;
    const picked =
      usage === undefined ? undefined : Object.fromEntries(Object.keys(expect.usage).map((key) => [key, usage[key]]));
    same('usage', picked, expect.usage);
  }
  if (expect.tool_calls !== undefined) {
    const calls = answer.toolCalls.map((call, k) => {
      const wanted = expect.tool_calls?.[k] ?? {};
      return Object.fromEntries(Object.keys(wanted).map((key) => [key, call[key as keyof typeof call]]));
    });
    same('tool_calls', calls, expect.tool_calls);
  }
  for (const part of expect.content_contains_all ?? [])
    if (!answer.content.includes(part)) failures.push(`${where}: content lacks ${show(part)}`);
  if (expect.tool_call_names !== undefined)
    same(
      'tool call names',
      answer.toolCalls.map((call) => call.name),
      expect.tool_call_names,
    );
  if (expect.tool_call_arguments !== undefined)
    same(
      'tool call arguments',
      answer.toolCalls.map((call) => call.arguments),
      expect.tool_call_arguments,
    );
  return failures;
}

/** Checks an output against a manifest entry's `expect`; returns the failures (none: it holds). */
export function checkExpect(view: OutputView, expect: CorpusExpect, output: string): string[] {
  if (expect.choices !== undefined) {
    const { choices, ...rest } = expect;
    return [
      ...checkAnswer(view.choices[0], rest, output),
      ...choices.flatMap(({ index, ...wanted }) =>
        checkAnswer(view.choices[index], wanted, `${output} choice ${index}`),
      ),
    ];
  }
  return checkAnswer(view.choices[0], expect, output);
}
