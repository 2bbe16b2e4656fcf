/**
 * The client's telemetry against the emulator, with in-memory exporters: one span per completion with the GenAI
 * attributes, the time-to-first-chunk sample, error.type on abort and failure, retries as span events.
 */
import { lastValueFrom, take, tap, toArray } from 'rxjs';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../../src/client/createChatClient';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { inMemoryTelemetry, type InMemoryTelemetry } from '../helpers/inMemoryTelemetry';

const KEY = 'sk-emulator-key-0123456789';
const REQUEST = { messages: [{ role: 'user' as const, content: 'secret prompt text' }], temperature: 0.5, top_p: 0.9, max_tokens: 300, seed: 42 };

describe('createChatClient telemetry against the emulator', () => {
  let emulator: Emulator;
  let telemetry: InMemoryTelemetry;
  let client: ChatClient | undefined;
  const make = (config: Partial<ChatClientConfig> = {}): ChatClient =>
    (client = createChatClient({
      provider: 'deepseek',
      baseUrl: emulator.url,
      apiKey: KEY,
      retry: { baseDelayMs: 5, maxDelayMs: 10 },
      telemetry: { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider },
      ...config,
    }));
  beforeEach(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 3, apiKey: KEY });
    telemetry = inMemoryTelemetry();
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await emulator.close();
    await telemetry.shutdown();
  });

  it('a scripted stream (first chunk after ~300 ms, 50 chunks, usage) gives one span with the attributes and a TTFC sample', async () => {
    const scripted = make({ headers: { 'x-emulator-scenario': 'queue=300;tokens=50;pace=1' } });
    const started = performance.now();
    let firstMs: number | undefined;
    const chunks = await lastValueFrom(
      scripted.chunks(REQUEST).pipe(
        tap(() => (firstMs ??= performance.now() - started)),
        toArray(),
      ),
    );
    const usage = chunks.map((chunk) => chunk.usage).find((value) => value != null);
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(chunks.length).toBeGreaterThanOrEqual(50);

    const spans = telemetry.spans();
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span?.name).toBe('chat deepseek-chat');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.status.code).not.toBe(SpanStatusCode.ERROR);
    const url = new URL(emulator.url);
    expect(span?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'deepseek',
      'gen_ai.request.model': 'deepseek-chat',
      'gen_ai.request.temperature': 0.5,
      'gen_ai.request.top_p': 0.9,
      'gen_ai.request.max_tokens': 300,
      'gen_ai.request.seed': 42,
      'gen_ai.request.stream': true,
      'gen_ai.response.id': chunks[0]?.id,
      'gen_ai.response.model': chunks[0]?.model,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': usage?.prompt_tokens,
      'gen_ai.usage.output_tokens': usage?.completion_tokens,
      'gen_ai.usage.cache_read.input_tokens': 0,
      'server.address': url.hostname,
      'server.port': Number(url.port),
    });
    expect(span?.attributes['error.type']).toBeUndefined();
    expect(span?.attributes['gen_ai.input.messages']).toBeUndefined(); // content only when asked for
    const ttfc = span?.attributes['gen_ai.response.time_to_first_chunk'] as number;
    expect(ttfc).toBeGreaterThanOrEqual(0.29);

    const [first] = await telemetry.histogram('gen_ai.client.operation.time_to_first_chunk');
    expect(first?.value.count).toBe(1);
    expect(Math.abs((first?.value.sum ?? 0) - (firstMs ?? 0) / 1000)).toBeLessThanOrEqual(0.05);
    expect(first?.attributes).toMatchObject({ 'gen_ai.provider.name': 'deepseek', 'gen_ai.request.model': 'deepseek-chat' });
    const [perChunk] = await telemetry.histogram('gen_ai.client.operation.time_per_output_chunk');
    // One sample per network read after the first (the emulator paces its events 1 ms apart: most are reads of their own).
    expect(perChunk?.value.count).toBeGreaterThanOrEqual(10);
    expect(perChunk?.value.count).toBeLessThanOrEqual(chunks.length - 1);
    const tokens = await telemetry.histogram('gen_ai.client.token.usage');
    expect(tokens.map((point) => [point.attributes['gen_ai.token.type'], point.value.sum]).sort()).toEqual(
      [['input', usage?.prompt_tokens], ['output', usage?.completion_tokens]].sort(),
    );
    const [duration] = await telemetry.histogram('gen_ai.client.operation.duration');
    expect(duration?.value.count).toBe(1);
    expect(duration?.attributes['error.type']).toBeUndefined();
  });

  it('message content is recorded only when captureContent is set', async () => {
    const capturing = make({ telemetry: { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider, captureContent: true } });
    const output = await lastValueFrom(capturing.json(REQUEST));
    const [span] = telemetry.spans();
    expect(JSON.parse(span?.attributes['gen_ai.input.messages'] as string)).toEqual(REQUEST.messages);
    expect(JSON.parse(span?.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: output.message.content }], finish_reason: 'stop' },
    ]);
    expect(span?.attributes['gen_ai.request.stream']).toBe(false);
  });

  it('a stream the subscriber leaves sets error.type aborted', async () => {
    const slow = make({ headers: { 'x-emulator-scenario': 'tokens=50;pace=20' } });
    await lastValueFrom(slow.stream(REQUEST).pipe(take(2)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const spans = telemetry.spans();
    expect(spans).toHaveLength(1);
    expect(spans[0]?.attributes['error.type']).toBe('aborted');
    expect(spans[0]?.status.code).toBe(SpanStatusCode.ERROR);
    const [duration] = await telemetry.histogram('gen_ai.client.operation.duration');
    expect(duration?.attributes['error.type']).toBe('aborted');
  });

  it('an AbortSignal sets error.type aborted', async () => {
    const slow = make({ headers: { 'x-emulator-scenario': 'tokens=50;pace=20' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(lastValueFrom(slow.chunks(REQUEST, { signal: controller.signal }))).rejects.toMatchObject({ code: 'aborted' });
    expect(telemetry.spans().map((span) => span.attributes['error.type'])).toEqual(['aborted']);
  });

  it('a failed completion records its code (and the upstream status)', async () => {
    const failing = make({ headers: { 'x-emulator-scenario': 'status=400' } });
    await expect(lastValueFrom(failing.chunks(REQUEST))).rejects.toMatchObject({ code: 'upstream_http' });
    const [span] = telemetry.spans();
    expect(span?.attributes).toMatchObject({ 'error.type': 'upstream_http', 'http.response.status_code': 400 });
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a retried completion is one span with a retry event; a timeout is an event', async () => {
    const flaky = make({ headers: { 'x-emulator-scenario': 'fail-first=1:503' } });
    await lastValueFrom(flaky.chunks(REQUEST).pipe(toArray()));
    const spans = telemetry.spans();
    expect(spans).toHaveLength(1);
    expect(spans[0]?.events.map((event) => event.name)).toEqual(['gen_ai.client.retry']);
    expect(spans[0]?.attributes['error.type']).toBeUndefined();

    const stalled = make({ headers: { 'x-emulator-scenario': 'stall-after=2' }, retry: false, timeouts: { idle: 100 } });
    await expect(lastValueFrom(stalled.chunks(REQUEST))).rejects.toMatchObject({ code: 'timeout' });
    const timedOut = telemetry.spans()[1];
    expect(timedOut?.events.map((event) => event.name)).toEqual(['gen_ai.client.timeout']);
    expect(timedOut?.attributes['error.type']).toBe('timeout');
  });

  it('telemetry: false records nothing', async () => {
    await lastValueFrom(make({ telemetry: false }).chunks(REQUEST).pipe(toArray()));
    expect(telemetry.spans()).toHaveLength(0);
    expect(await telemetry.histogram('gen_ai.client.operation.duration')).toHaveLength(0);
  });
});

