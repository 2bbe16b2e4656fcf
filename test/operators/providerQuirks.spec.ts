/**
 * The response-side rules every output shares (accumulateDeltas, toOutput, toOutputChunks), one provider quirk at a
 * time: reasoning in any field, Mistral's content parts, the first non-empty identity (Azure's opening chunk),
 * usage wherever it is (top level, a choice, x_groq), refusals, and decodeChunk accepting all of it.
 */
import { last, lastValueFrom, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { accumulateDeltas } from '../../src/operators/accumulateDeltas';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { deltaContent } from '../../src/operators/deltaContent';
import { deltaReasoning } from '../../src/operators/deltaReasoning';
import { toOutput } from '../../src/operators/toOutput';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import type { ChatCompletionChunk, ChunkDelta, LlmClientOutputChunk, Usage } from '../../src/core/schemas';
import type { SseEvent } from '../../src/core/types';

const head = { id: 'c1', object: 'chat.completion.chunk', created: 10, model: 'm' };
const d = (
  delta: ChunkDelta,
  finish: string | null = null,
  top: Partial<ChatCompletionChunk> = {},
): ChatCompletionChunk => ({
  ...head,
  ...top,
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usage: Usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
const thinking = (text: string) => [{ type: 'thinking', thinking: [{ type: 'text', text }] }];
const textPart = (text: string) => [{ type: 'text', text }];

/** The answer of each output for the same chunks: the last snapshot's message, toOutput's, and the chunks folded. */
async function outputs(chunks: ChatCompletionChunk[]) {
  const snapshot = await lastValueFrom(of(...chunks).pipe(accumulateDeltas(), last()));
  const output = await lastValueFrom(of(...chunks).pipe(toOutput()));
  const streamed = await lastValueFrom(of(...chunks).pipe(toOutputChunks(), toArray()));
  const fold = (field: 'content' | 'reasoning_content' | 'refusal') =>
    streamed.map((c) => c.message[field] ?? '').join('');
  return { snapshot, output, streamed, fold };
}

describe('provider quirks: one rule in every output', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('reasoning, whatever field carries it', () => {
    it('delta.reasoning (OpenRouter, Groq, vLLM) concatenates into reasoning_content everywhere', async () => {
      const { snapshot, output, fold } = await outputs([
        d({ role: 'assistant', content: '' }),
        d({ reasoning: 'Two' }),
        d({ reasoning: ' plus two.' }),
        d({ content: '4' }, 'stop'),
      ]);
      expect(snapshot.choices[0]?.message).toEqual({
        role: 'assistant',
        content: '4',
        reasoning_content: 'Two plus two.',
      });
      expect(output.message).toEqual({ role: 'assistant', content: '4', reasoning_content: 'Two plus two.' });
      expect(fold('reasoning_content')).toBe('Two plus two.');
    });

    it('the same piece under reasoning_content and reasoning is counted once', async () => {
      const { snapshot, output, fold } = await outputs([
        d({ reasoning_content: 'a', reasoning: 'a' }),
        d({ reasoning_content: 'b', reasoning: 'b' }, 'stop'),
      ]);
      expect(snapshot.choices[0]?.message.reasoning_content).toBe('ab');
      expect(output.message.reasoning_content).toBe('ab');
      expect(fold('reasoning_content')).toBe('ab');
    });

    it('toOutputChunks puts a reasoning piece on its own chunk, in marbles', () => {
      scheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a-b-c-|', {
          a: d({ role: 'assistant', content: '' }),
          b: d({ reasoning: 'Hm' }),
          c: d({ content: 'Yes' }, 'stop'),
        });
        expectObservable(source.pipe(toOutputChunks())).toBe('---B-C-(D|)', {
          B: { message: { role: 'assistant', content: '', reasoning_content: 'Hm' }, done: false, index: 0 },
          C: { message: { role: 'assistant', content: 'Yes' }, done: false, index: 1 },
          D: { message: { role: 'assistant', content: '' }, done: true, index: 2, finish_reason: 'stop' },
        });
      });
    });
  });

  describe("Mistral's content parts", () => {
    it('thinking parts are reasoning, text parts are content, in every output', async () => {
      const { snapshot, output, fold } = await outputs([
        d({ role: 'assistant', content: thinking('Paris is') }),
        d({ content: thinking(' the capital.') }),
        d({ content: textPart('Paris') }),
        d({ content: '.' }, 'stop'),
      ]);
      const message = { role: 'assistant', content: 'Paris.', reasoning_content: 'Paris is the capital.' };
      expect(snapshot.choices[0]?.message).toEqual(message);
      expect(output.message).toEqual(message);
      expect(fold('content')).toBe('Paris.');
      expect(fold('reasoning_content')).toBe('Paris is the capital.');
    });

    it('deltaContent / deltaReasoning read every shape', () => {
      expect(deltaContent({ content: 'x' })).toBe('x');
      expect(deltaContent({ content: null })).toBe('');
      expect(
        deltaContent({ content: [...thinking('t'), ...textPart('a'), { type: 'image_url' }, ...textPart('b')] }),
      ).toBe('ab');
      expect(deltaReasoning({ content: 'x' })).toBeUndefined();
      expect(deltaReasoning({ reasoning_content: '' })).toBe('');
      expect(deltaReasoning({ reasoning: '' })).toBe('');
      expect(deltaReasoning({ reasoning_content: 'r', reasoning: 'other' })).toBe('r');
      expect(deltaReasoning({ reasoning_content: '', reasoning: 'g' })).toBe('g');
      expect(
        deltaReasoning({ content: [...thinking('a'), { type: 'thinking', thinking: 'b' }, ...textPart('x')] }),
      ).toBe('ab');
      expect(deltaReasoning({ content: textPart('x') })).toBeUndefined();
    });

    it('decodeChunk accepts content arrays (no schema_violation) and still refuses parts without a type', async () => {
      const decode = (delta: unknown) =>
        lastValueFrom(
          of<SseEvent[]>({ data: JSON.stringify({ choices: [{ index: 0, delta }] }) }, { data: '[DONE]' }).pipe(
            decodeChunk(),
            toArray(),
          ),
        );
      const [chunk] = await decode({ content: thinking('t') });
      expect(chunk?.choices[0]?.delta?.content).toEqual(thinking('t'));
      await expect(decode({ content: [{ text: 'no type' }] })).rejects.toMatchObject({ code: 'schema_violation' });
      await expect(decode({ content: 5 })).rejects.toMatchObject({ code: 'schema_violation' });
      await expect(decode({ reasoning: 5 })).rejects.toMatchObject({ code: 'schema_violation' });
    });
  });

  describe('the first non-empty id / model / created', () => {
    const azure: ChatCompletionChunk = {
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [],
    };
    it("skips Azure's empty opening chunk and keeps the first real values though later chunks change them", async () => {
      const { snapshot, output } = await outputs([
        azure,
        d({ content: 'a' }, null, { id: 'real', model: 'gpt', created: 100 }),
        d({ content: 'b' }, 'stop', { id: 'other', model: 'gpt-2', created: 101 }),
      ]);
      expect([snapshot.id, snapshot.model, snapshot.created]).toEqual(['real', 'gpt', 100]);
      expect([output.id, output.model, output.created]).toEqual(['real', 'gpt', 100]);
    });
  });

  describe('usage, wherever the provider puts it', () => {
    it("Groq's x_groq.usage reaches every output", async () => {
      const { snapshot, output, streamed } = await outputs([
        d({ content: 'a' }),
        d({}, 'stop', { x_groq: { id: 'req_1', usage } }),
      ]);
      expect(snapshot.usage).toEqual(usage);
      expect(output.usage).toEqual(usage);
      expect(streamed.at(-1)?.usage).toEqual(usage);
    });

    it('a top-level usage wins over x_groq on the same chunk; decodeChunk lifts x_groq.usage to the top', async () => {
      const other = { ...usage, total_tokens: 99 };
      const { output } = await outputs([d({ content: 'a' }, 'stop', { usage, x_groq: { usage: other } })]);
      expect(output.usage).toEqual(usage);
      const [decoded] = await lastValueFrom(
        of<SseEvent[]>({ data: JSON.stringify(d({}, 'stop', { x_groq: { usage: other } })) }, { data: '[DONE]' }).pipe(
          decodeChunk(),
          toArray(),
        ),
      );
      expect(decoded?.usage).toEqual(other);
      expect(decoded?.x_groq?.usage).toEqual(other);
    });
  });

  describe('refusals', () => {
    it('a refusal is message.refusal in every output, never an empty answer that looks like success', async () => {
      const { snapshot, output, fold } = await outputs([
        d({ role: 'assistant', content: null, refusal: '' }),
        d({ refusal: "I can't" }),
        d({ refusal: ' help.' }),
        d({}, 'stop'),
      ]);
      expect(snapshot.choices[0]?.message).toEqual({ role: 'assistant', content: null, refusal: "I can't help." });
      expect(output.message).toEqual({ role: 'assistant', content: '', refusal: "I can't help." });
      expect(fold('refusal')).toBe("I can't help.");
    });

    it('toOutputChunks emits refusal pieces as chunks, in marbles', () => {
      scheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a-b-f-|', {
          a: d({ role: 'assistant', content: null, refusal: '' }),
          b: d({ refusal: 'No.' }),
          f: d({}, 'stop'),
        });
        const chunk: LlmClientOutputChunk = {
          message: { role: 'assistant', content: '', refusal: 'No.' },
          done: false,
          index: 0,
        };
        expectObservable(source.pipe(toOutputChunks())).toBe('---B---(D|)', {
          B: chunk,
          D: { message: { role: 'assistant', content: '' }, done: true, index: 1, finish_reason: 'stop' },
        });
      });
    });
  });

  describe('usage_missing (decodeChunk({ usageRequested }) at an EOF without usage)', () => {
    const missing: ChatCompletionChunk = { object: 'chat.completion.chunk', choices: [], usage_missing: true };
    it('toOutput and the done chunk say usage_missing: true; accumulateDeltas keeps the field', async () => {
      const { snapshot, output, streamed } = await outputs([d({ content: 'a' }, 'stop'), missing]);
      expect(output.usage_missing).toBe(true);
      expect(output).not.toHaveProperty('usage');
      expect(streamed.at(-1)).toEqual({
        message: { role: 'assistant', content: '' },
        done: true,
        index: 1,
        finish_reason: 'stop',
        usage_missing: true,
      });
      expect(snapshot).toMatchObject({ usage_missing: true, id: 'c1', created: 10 });
    });

    it('is absent when the usage came after all', async () => {
      const { output } = await outputs([d({ content: 'a' }, 'stop', { usage }), missing]);
      expect(output).not.toHaveProperty('usage_missing');
    });
  });
});
