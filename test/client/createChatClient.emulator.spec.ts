import { lastValueFrom, toArray } from 'rxjs';
import {
  isAnswerFailedError,
  isNetworkError,
  isTimeoutError,
  isUpstreamHttpError,
  type UpstreamHttpError,
} from '../../src/core/errors';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../../src/client/createChatClient';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

const KEY = 'sk-emulator-key-0123456789';
const MESSAGES = [{ role: 'user' as const, content: '你好' }];
const failure = <T>(source: import('rxjs').Observable<T>): Promise<unknown> =>
  lastValueFrom(source).then(
    () => {
      throw new Error('expected an error');
    },
    (error: unknown) => error,
  );

describe.each(['deepseek', 'moonshot'] as const)('createChatClient against the %s emulator', (dialect) => {
  let emulator: Emulator;
  let client: ChatClient | undefined;
  const make = (scenario: string, config: Partial<ChatClientConfig> = {}): ChatClient =>
    (client = createChatClient({
      provider: dialect,
      baseUrl: emulator.url,
      apiKey: KEY,
      headers: { 'x-emulator-scenario': scenario },
      retry: { baseDelayMs: 10, maxDelayMs: 20 },
      ...config,
    }));
  beforeEach(async () => {
    emulator = await startEmulator({ dialect, seed: 7, apiKey: KEY });
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await emulator.close();
  });

  it('json and stream carry the same text, usage counted once', async () => {
    const output = await lastValueFrom(make('split=random').json({ messages: MESSAGES }));
    const chunks = await lastValueFrom(make('split=7').stream({ messages: MESSAGES }).pipe(toArray()));
    expect(output.message.content.length).toBeGreaterThan(0);
    expect(chunks.map((c) => c.message.content).join('')).toBe(output.message.content);
    expect(chunks.filter((c) => c.done)).toHaveLength(1);
    expect(output.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('fail-first=2:503 → retried, three requests, one answer', async () => {
    const output = await lastValueFrom(make('fail-first=2:503').json({ messages: MESSAGES }));
    expect(output.done).toBe(true);
    expect(emulator.requests).toHaveLength(3);
  });

  it('an HTML 502 page → UpstreamHttpError 502 with the page title', async () => {
    const error = (await failure(
      make('html-status=502', { retry: false }).json({ messages: MESSAGES }),
    )) as UpstreamHttpError;
    expect(isUpstreamHttpError(error)).toBe(true);
    expect(error.status).toBe(502);
    expect(error.message).toContain('502 Bad Gateway');
  });

  it("the provider's 429 body → typed error with its type and message", async () => {
    const error = (await failure(
      make('status=429;retry-after=1', { retry: false }).json({ messages: MESSAGES }),
    )) as UpstreamHttpError;
    expect(error.status).toBe(429);
    expect(error.upstreamType).toBeDefined();
    expect(error.message).toMatch(/^upstream answered HTTP 429: \S/);
    if (dialect === 'moonshot') expect(error.retryAfterMs).toBe(1000);
  });

  it('a reset after some chunks: stream surfaces a NetworkError after them, one request', async () => {
    const seen: string[] = [];
    const error = await new Promise((resolve) =>
      make('pace=20;reset-after=3')
        .stream({ messages: MESSAGES })
        .subscribe({ next: (c) => seen.push(c.message.content), error: resolve }),
    );
    expect(isNetworkError(error)).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    expect(emulator.requests).toHaveLength(1);
  });

  it('a queue with keep-alive comments shorter than firstChunk is waited out', async () => {
    const output = await lastValueFrom(
      make('queue=300;keep-alive=50', { timeouts: { firstChunk: 2000 } }).json({ messages: MESSAGES }),
    );
    expect(output.done).toBe(true);
  });

  it('stall-after=2 → TimeoutError("idle"), the emulator sees the client go away', async () => {
    const error = await failure(make('stall-after=2', { timeouts: { idle: 300 } }).stream({ messages: MESSAGES }));
    expect(isTimeoutError(error)).toBe(true);
    expect(error).toMatchObject({ phase: 'idle' });
    await emulator.requests[0]?.closed;
    expect(emulator.requests[0]?.closedEarly).toBe(true);
  });

  it('finish=insufficient_system_resource: json retries it (nothing was emitted), then fails with AnswerFailedError', async () => {
    const error = await failure(make('finish=insufficient_system_resource').json({ messages: MESSAGES }));
    expect(isAnswerFailedError(error)).toBe(true);
    expect(emulator.requests).toHaveLength(3);
  });
});

describe('createChatClient: no per-chunk work for the silence deadline (its signs of life are the SSE comments)', () => {
  let emulator: Emulator | undefined;
  let client: ChatClient | undefined;
  afterEach(async () => {
    jest.restoreAllMocks();
    await client?.close();
    await emulator?.close();
  });
  /** The chunks of one answer of 200 tokens, written one by one 1 ms apart, and the clock reads meanwhile. */
  const clockReads = async (timeouts: ChatClientConfig['timeouts']): Promise<{ chunks: number; reads: number }> => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 7, scenario: 'tokens=200;pace=1' });
    client = createChatClient({ provider: 'deepseek', baseUrl: emulator.url, apiKey: KEY, timeouts });
    const { asyncScheduler } = await import('rxjs');
    const now = jest.spyOn(asyncScheduler, 'now');
    const chunks = (await lastValueFrom(client.chunks({ messages: MESSAGES }).pipe(toArray()))).length;
    return { chunks, reads: now.mock.calls.length };
  };

  it('without a silence deadline (nor first-chunk and idle ones) the clock is not read per chunk', async () => {
    const { chunks, reads } = await clockReads({ silence: 0, firstChunk: 0, idle: 0 });
    expect(chunks).toBeGreaterThan(100);
    expect(reads).toBeLessThan(5); // was one per upstream byte chunk
  });

  it('with one, only the idle deadline reads it per chunk (once), not the silence deadline', async () => {
    const { chunks, reads } = await clockReads({ silence: 30_000, firstChunk: 0, idle: 60_000 });
    expect(chunks).toBeGreaterThan(100);
    expect(reads).toBeLessThanOrEqual(chunks + 5); // was about twice as many: one more per upstream byte chunk
  });
});
