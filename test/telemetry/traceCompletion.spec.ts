import { lastValueFrom, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { createCompletionTelemetry } from '../../src/telemetry/createCompletionTelemetry';
import { traceCompletion } from '../../src/telemetry/traceCompletion';
import type { ChatCompletionChunk } from '../../src/core/schemas/index';
import { inMemoryTelemetry, type InMemoryTelemetry } from '../helpers/inMemoryTelemetry';

const chunk = (fields: Partial<ChatCompletionChunk>): ChatCompletionChunk =>
  ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm-1', choices: [], ...fields }) as ChatCompletionChunk;

describe('traceCompletion', () => {
  let telemetry: InMemoryTelemetry;
  beforeEach(() => (telemetry = inMemoryTelemetry()));
  afterEach(() => telemetry.shutdown());
  const traced = (chunks: ChatCompletionChunk[], providerName: string) =>
    lastValueFrom(
      of(...chunks).pipe(
        traceCompletion({ ...telemetry, completion: { providerName, model: 'asked', request: { n: 2, max_completion_tokens: 9 } } }),
        toArray(),
      ),
    );

  it('passes the chunks through unchanged (marbles)', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
      const values = { a: chunk({}), b: chunk({ id: 'c2' }) };
      expectObservable(cold('--a-b|', values).pipe(traceCompletion({ ...telemetry, completion: { providerName: 'openai' } }))).toBe('--a-b|', values);
    });
    expect(telemetry.spans()).toHaveLength(1);
  });

  it("maps DeepSeek's prompt_cache_hit_tokens to gen_ai.usage.cache_read.input_tokens", async () => {
    await traced(
      [
        chunk({ choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] }),
        chunk({ usage: { prompt_tokens: 10, completion_tokens: 4, prompt_cache_hit_tokens: 6, completion_tokens_details: { reasoning_tokens: 3 } } }),
      ],
      'deepseek',
    );
    expect(telemetry.spans()[0]?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 4,
      'gen_ai.usage.cache_read.input_tokens': 6,
      'gen_ai.usage.reasoning.output_tokens': 3,
      'gen_ai.request.choice.count': 2,
      'gen_ai.request.max_tokens': 9,
      'gen_ai.response.model': 'm-1',
    });
  });

  it("maps Moonshot's cached_tokens (usage inside the finishing choice), and every choice's finish reason", async () => {
    await traced(
      [
        chunk({ choices: [{ index: 1, delta: {}, finish_reason: 'length' }] }),
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage: { prompt_tokens: 7, completion_tokens: 2, cached_tokens: 5 } }] }),
      ],
      'moonshot_ai',
    );
    expect(telemetry.spans()[0]?.attributes).toMatchObject({
      'gen_ai.provider.name': 'moonshot_ai',
      'gen_ai.usage.cache_read.input_tokens': 5,
      'gen_ai.response.finish_reasons': ['stop', 'length'],
    });
  });

  it('without a registered provider nothing is started (no per-chunk work)', () => {
    const none = createCompletionTelemetry();
    expect(none?.start({ providerName: 'openai', model: 'm' })).toBeUndefined();
    expect(createCompletionTelemetry({ enabled: false })).toBeUndefined();
  });
});
