import { Observable, catchError, from, last, lastValueFrom, map, of, toArray, type OperatorFunction } from 'rxjs';
import type { ChatCompletion, ChatCompletionChunk, LlmClientOutputChunk, Usage } from '../../src/core/schemas';
import { accumulateDeltas } from '../../src/operators/accumulateDeltas';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { toOutput } from '../../src/operators/toOutput';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import { toNdjson } from '../../src/wire/toNdjson';
import { toSse } from '../../src/wire/toSse';

/** One choice's answer as an output shows it, in a common form so that the outputs can be compared. */
export interface AnswerView {
  content: string;
  reasoning: string;
  refusal: string;
  toolCalls: Array<{ id: string; type: string; name: string; arguments: string }>;
  finishReason: string | undefined;
  usage: Usage | undefined;
}

/** What one output gave: the answer of each followed choice, the stream's identity when the output carries it, or the error. */
export interface OutputView {
  error?: { name: string; code: string };
  id?: string;
  model?: string;
  created?: number;
  choices: Record<number, AnswerView>;
}

/** The four outputs of one chunking of a stream. */
export interface PipelineViews {
  accumulate: OutputView;
  output: OutputView;
  ndjson: OutputView;
  sse: OutputView;
  /** The NDJSON and SSE texts' chunk payloads, to check that both wires carry the same sequence. */
  ndjsonChunks: string[];
  sseChunks: string[];
}

const errorOf = (error: unknown): { name: string; code: string } => ({
  name: (error as Error)?.name ?? 'unknown',
  code: (error as { code?: string })?.code ?? 'unknown',
});

const chunksOf = (pieces: readonly Uint8Array[]): Observable<ChatCompletionChunk> =>
  from(pieces).pipe(parseSse(), decodeChunk());

const settle = <T>(source: Observable<T>): Promise<{ value: T } | { error: unknown }> =>
  lastValueFrom(
    source.pipe(
      map((value) => ({ value })),
      catchError((error: unknown) => of({ error })),
    ),
  );

const fromCompletion = (completion: ChatCompletion): OutputView => {
  const choices: Record<number, AnswerView> = {};
  for (const choice of completion.choices) {
    const message = choice.message as ChatCompletion['choices'][number]['message'] & { refusal?: string };
    choices[choice.index] = {
      content: message.content ?? '',
      reasoning: message.reasoning_content ?? '',
      refusal: message.refusal ?? '',
      toolCalls: (message.tool_calls ?? []).map((call) => ({
        id: call.id,
        type: call.type,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
      finishReason: choice.finish_reason ?? undefined,
      usage: completion.usage ?? undefined,
    };
  }
  return { id: completion.id, model: completion.model, created: completion.created, choices };
};

const empty = (): AnswerView => ({
  content: '',
  reasoning: '',
  refusal: '',
  toolCalls: [],
  finishReason: undefined,
  usage: undefined,
});

/** Folds the contract's chunks (as NDJSON or SSE carried them) into one answer. */
const foldChunks = (payloads: readonly string[]): { answer: AnswerView; error?: { name: string; code: string } } => {
  const answer = empty();
  for (const payload of payloads) {
    const value = JSON.parse(payload) as LlmClientOutputChunk & { error?: { code: string } };
    if (value.error !== undefined) return { answer, error: { name: 'wire error', code: value.error.code } };
    const message = value.message as LlmClientOutputChunk['message'] & { refusal?: string };
    answer.content += message.content;
    answer.reasoning += message.reasoning_content ?? '';
    answer.refusal += message.refusal ?? '';
    for (const call of message.tool_calls ?? [])
      answer.toolCalls.push({
        id: call.id,
        type: call.type,
        name: call.function.name,
        arguments: call.function.arguments,
      });
    if (value.done) {
      answer.finishReason = value.finish_reason;
      answer.usage = value.usage;
    }
  }
  return { answer };
};

const text = (source: Observable<string>): Promise<string> =>
  lastValueFrom(
    source.pipe(
      toArray(),
      map((parts) => parts.join('')),
    ),
  );

/** The data payloads of an SSE text written by `toSse` (an `event: error` frame's data as the NDJSON error line `{"error":…,"done":true}`). */
const ssePayloads = (sse: string): string[] =>
  sse
    .split('\n\n')
    .filter((frame) => frame !== '' && frame !== 'data: [DONE]')
    .map((frame) =>
      frame.startsWith('event: error\ndata: ')
        ? `{"error":${frame.slice('event: error\ndata: '.length)},"done":true}`
        : frame.slice('data: '.length),
    );

/**
 * Runs one chunking of a stream through the four outputs: `accumulateDeltas` (last snapshot), `toOutput`, and
 * `toOutputChunks` written as NDJSON and as SSE — for each choice in `choices` (n > 1: one pipeline per choice).
 */
export async function runPipelines(pieces: readonly Uint8Array[], choices: readonly number[]): Promise<PipelineViews> {
  const accumulated = await settle(chunksOf(pieces).pipe(accumulateDeltas(), last()));
  const accumulate: OutputView =
    'error' in accumulated ? { error: errorOf(accumulated.error), choices: {} } : fromCompletion(accumulated.value);
  const output: OutputView = { choices: {} };
  const ndjson: OutputView = { choices: {} };
  const sse: OutputView = { choices: {} };
  let ndjsonChunks: string[] = [];
  let sseChunks: string[] = [];
  for (const choice of choices) {
    const settled = await settle(chunksOf(pieces).pipe(toOutput({ choice })));
    if ('error' in settled) output.error ??= errorOf(settled.error);
    else {
      const { id, model, created, message, finish_reason, usage } = settled.value;
      Object.assign(output, { id, model, created });
      output.choices[choice] = {
        content: message.content,
        reasoning: message.reasoning_content ?? '',
        refusal: (message as { refusal?: string }).refusal ?? '',
        toolCalls: (message.tool_calls ?? []).map((call) => ({
          id: call.id,
          type: call.type,
          name: call.function.name,
          arguments: call.function.arguments,
        })),
        finishReason: finish_reason,
        usage,
      };
    }
    const contract: OperatorFunction<ChatCompletionChunk, LlmClientOutputChunk> = toOutputChunks({ choice });
    const lines = (await text(chunksOf(pieces).pipe(contract, toNdjson()))).split('\n').filter((line) => line !== '');
    const frames = ssePayloads(await text(chunksOf(pieces).pipe(contract, toSse())));
    if (choice === choices[0]) {
      ndjsonChunks = lines;
      sseChunks = frames;
    }
    const fromLines = foldChunks(lines);
    if (fromLines.error) ndjson.error ??= fromLines.error;
    else ndjson.choices[choice] = fromLines.answer;
    const fromFrames = foldChunks(frames);
    if (fromFrames.error) sse.error ??= fromFrames.error;
    else sse.choices[choice] = fromFrames.answer;
  }
  return { accumulate, output, ndjson, sse, ndjsonChunks, sseChunks };
}
