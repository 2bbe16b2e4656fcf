import fc from 'fast-check';
import { lastValueFrom, Observable, of, toArray } from 'rxjs';
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

describe('traceCompletion: bounded metric attributes, redacted span attributes', () => {
  let telemetry: InMemoryTelemetry;
  beforeEach(() => (telemetry = inMemoryTelemetry()));
  afterEach(() => telemetry.shutdown());
  const KEY = 'sk-upstream-key-0123456789abcdef';
  const run = (model: string, responseModel: string, extra: { models?: readonly string[] } = {}) =>
    lastValueFrom(
      of(
        chunk({ id: `cmpl-${KEY}`, model: responseModel, choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] }),
        chunk({ model: responseModel, usage: { prompt_tokens: 3, completion_tokens: 1 } }),
      ).pipe(traceCompletion({ ...telemetry, ...extra, secrets: [KEY], completion: { providerName: 'openai', model } }), toArray()),
    );
  const labels = async (): Promise<Array<Record<string, unknown>>> =>
    (await telemetry.histogram('gen_ai.client.operation.duration')).map((point) => point.attributes);

  it('records only the models of `models`: any other request or response model is `other`, however many there are', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), async (model, responseModel) => {
        await lastValueFrom(
          of(chunk({ model: responseModel, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })).pipe(
            traceCompletion({ ...telemetry, models: ['gpt-4o'], completion: { providerName: 'openai', model } }),
            toArray(),
          ),
        );
      }),
      { numRuns: 300, examples: [['gpt-4o', 'gpt-4o']] },
    );
    const pairs = new Set((await labels()).map((a) => `${String(a['gen_ai.request.model'])} → ${String(a['gen_ai.response.model'])}`));
    // 301 completions with random names: the known model's series and `other`'s, nothing else.
    expect(pairs).toContain('gpt-4o → gpt-4o');
    expect(pairs).toContain('other → other');
    expect([...pairs].every((pair) => /^(gpt-4o|other) → (gpt-4o|other)$/.test(pair))).toBe(true);
    // The span keeps the name asked for.
    expect(telemetry.spans().some((span) => span.name === 'chat gpt-4o')).toBe(true);
  });

  it('`models` names the known models (none by default); `error.type` is a chatflux code or _OTHER', async () => {
    await run('deepseek-chat', 'deepseek-chat', { models: ['deepseek-chat'] });
    await run('asked', 'deepseek-chat', { models: ['deepseek-chat'] });
    await run('deepseek-chat', 'deepseek-chat-0324', { models: ['deepseek-chat'] });
    await run('deepseek-chat', 'deepseek-chat');
    const pairs = (await labels()).map((a) => [a['gen_ai.request.model'], a['gen_ai.response.model']]);
    expect(pairs).toEqual(expect.arrayContaining([['deepseek-chat', 'deepseek-chat'], ['other', 'deepseek-chat'], ['deepseek-chat', 'other'], ['other', 'other']]));
    expect(pairs).toHaveLength(4);
    const failing = traceCompletion({ ...telemetry, models: ['asked'], completion: { providerName: 'openai', model: 'asked' } });
    const error = Object.assign(new Error('provider said no'), { code: 'provider-code-42' });
    await expect(lastValueFrom(new Observable<ChatCompletionChunk>((s) => s.error(error)).pipe(failing))).rejects.toBe(error);
    const failed = (await labels()).filter((a) => a['error.type'] !== undefined);
    expect(failed.map((a) => a['error.type'])).toEqual(['_OTHER']);
  });

  it('the span keeps the real names, redacted and at most 256 characters', async () => {
    const long = `m${'x'.repeat(1000)}`;
    await run(`asked-${KEY}`, long);
    const span = telemetry.spans()[0];
    expect(span?.name).toBe('chat asked-[redacted]');
    expect(span?.attributes['gen_ai.request.model']).toBe('asked-[redacted]');
    expect(span?.attributes['gen_ai.response.id']).toBe('cmpl-[redacted]');
    expect(String(span?.attributes['gen_ai.response.model'])).toMatch(/^mx{255}… \(1001 chars\)$/);
    expect(JSON.stringify(span?.attributes)).not.toContain(KEY);
  });
});

describe('createCompletionTelemetry: one telemetry, calls of different models, providers and servers', () => {
  let telemetry: InMemoryTelemetry;
  beforeEach(() => (telemetry = inMemoryTelemetry()));
  afterEach(() => telemetry.shutdown());

  it('gives each call the attributes of its own description, whatever came before (what is reused is never stale)', async () => {
    const KEY = 'sk-upstream-key-0123456789abcdef';
    const completions = createCompletionTelemetry({ ...telemetry, models: ['known'], secrets: [KEY] });
    const calls = [
      { providerName: 'deepseek', model: 'known', baseUrl: 'https://api.deepseek.com' },
      { providerName: 'deepseek', model: `asked-${KEY}`, baseUrl: 'https://api.deepseek.com' },
      { providerName: 'deepseek', model: 'known', baseUrl: 'http://[::1]:8080/v1' },
      { providerName: 'moonshot', model: 'known', baseUrl: 'http://[::1]:8080/v1' },
      { providerName: 'moonshot', baseUrl: 'http://[::1]:8080/v1' },
      { providerName: 'moonshot', model: 'known' },
      { providerName: 'deepseek', model: 'known', baseUrl: 'https://api.deepseek.com' },
    ];
    for (const description of calls) completions?.start({ ...description, request: { temperature: 0.5 } })?.end(undefined);
    const spans = telemetry.spans();
    expect(spans.map((span) => span.name)).toEqual(['chat known', 'chat asked-[redacted]', 'chat known', 'chat known', 'chat', 'chat known', 'chat known']);
    const spanOf = (index: number): Record<string, unknown> => ({ ...spans[index]?.attributes });
    expect(spanOf(0)).toEqual({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'deepseek', 'server.address': 'api.deepseek.com', 'server.port': 443, 'gen_ai.request.model': 'known', 'gen_ai.request.stream': true, 'gen_ai.request.temperature': 0.5 });
    expect(spanOf(1)['gen_ai.request.model']).toBe('asked-[redacted]');
    expect(spanOf(2)).toMatchObject({ 'gen_ai.provider.name': 'deepseek', 'server.address': '::1', 'server.port': 8080 });
    expect(spanOf(3)).toMatchObject({ 'gen_ai.provider.name': 'moonshot', 'server.address': '::1', 'gen_ai.request.model': 'known' });
    expect(spanOf(4)).not.toHaveProperty('gen_ai.request.model');
    expect(spanOf(5)).not.toHaveProperty('server.address');
    expect(spanOf(5)).toMatchObject({ 'gen_ai.provider.name': 'moonshot', 'gen_ai.request.model': 'known' });
    expect(spanOf(6)).toEqual(spanOf(0));
    const series = (await telemetry.histogram('gen_ai.client.operation.duration')).map((point) => point.attributes);
    expect(series).toHaveLength(6); // calls 0 and 6 are one series; the unknown model is `other`
    expect(series).toContainEqual({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'deepseek', 'server.address': 'api.deepseek.com', 'server.port': 443, 'gen_ai.request.model': 'other' });
    expect(series).toContainEqual({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'moonshot', 'server.address': '::1', 'server.port': 8080 });
  });
});
