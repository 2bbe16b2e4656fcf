import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { lastValueFrom, take, toArray } from 'rxjs';
import {
  ConfigError,
  isAbortedError,
  isConfigError,
  isNetworkError,
  isRequestError,
  isTimeoutError,
  isUpstreamHttpError,
  isUpstreamStreamError,
  type UpstreamHttpError,
} from '../../src/core/errors';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../../src/client/createChatClient';
import { DEFAULT_TIMEOUTS } from '../../src/source/defaultTimeouts';
import { PROVIDERS } from '../../src/client/providers';
import { promptBound } from '../helpers/promptBound';
import { startServer, type TestServer } from '../helpers/startServer';

const KEY = 'sk-live-supersecret-0123456789';
const MESSAGES = [{ role: 'user' as const, content: '你好' }];
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const frame = (content: string, extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1767867407,
    model: 'deepseek-chat',
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
    ...extra,
  })}\n\n`;
const FINISH = `data: ${JSON.stringify({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1767867407,
  model: 'deepseek-chat',
  choices: [{ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
})}\n\n`;
const ANSWER = [frame('你'), frame('好'), FINISH, 'data: [DONE]\n\n'];
const sse = (res: ServerResponse): void => void res.writeHead(200, { 'content-type': 'text/event-stream' });
const answerWith = (res: ServerResponse, frames = ANSWER): void => {
  sse(res);
  res.end(frames.join(''));
};
const failure = <T>(source: import('rxjs').Observable<T>): Promise<unknown> =>
  lastValueFrom(source).then(
    () => {
      throw new Error('expected an error');
    },
    (error: unknown) => error,
  );

describe('createChatClient', () => {
  let server: TestServer;
  let client: ChatClient;
  let bodies: unknown[];
  let socketClosedAt: Promise<number>;
  const serve = async (handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<void> => {
    bodies = [];
    server = await startServer((req, res) => {
      socketClosedAt = new Promise((resolve) => req.socket.once('close', () => resolve(Date.now())));
      let data = '';
      req.on('data', (chunk: Buffer) => (data += chunk.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(data));
        handler(req, res, server.requests.length);
      });
    });
  };
  const make = (config: Partial<ChatClientConfig> = {}): ChatClient =>
    (client = createChatClient({
      provider: 'deepseek',
      baseUrl: server.url,
      apiKey: KEY,
      retry: { baseDelayMs: 10, maxDelayMs: 20 },
      ...config,
    }));
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  describe('the four results', () => {
    beforeEach(() => serve((_req, res) => answerWith(res)));

    it('json: one LlmClientOutput, with the preset model filled in', async () => {
      const output = await lastValueFrom(make().json({ messages: MESSAGES }).pipe(toArray()));
      expect(output).toHaveLength(1);
      expect(output[0]).toMatchObject({
        id: 'c1',
        model: 'deepseek-chat',
        message: { role: 'assistant', content: '你好' },
        done: true,
      });
      expect(bodies[0]).toMatchObject({
        model: 'deepseek-chat',
        messages: MESSAGES,
        stream: true,
        stream_options: { include_usage: true },
      });
    });

    it('stream: the contract chunks, the last one done', async () => {
      const chunks = await lastValueFrom(
        make().stream({ messages: MESSAGES, model: 'deepseek-reasoner' }).pipe(toArray()),
      );
      expect(chunks.map((c) => c.message.content).join('')).toBe('你好');
      expect(chunks.at(-1)?.done).toBe(true);
      expect(chunks.map((c) => c.index)).toEqual(chunks.map((_c, i) => i));
      expect(bodies[0]).toMatchObject({ model: 'deepseek-reasoner' });
    });

    it('sse: the same chunks as ServerSentEvents', async () => {
      const events = await lastValueFrom(make().sse({ messages: MESSAGES }).pipe(toArray()));
      expect(events.map((e) => e.data?.message.content).join('')).toBe('你好');
      expect(events.at(-1)?.data?.done).toBe(true);
    });

    it('chunks: the upstream chunks', async () => {
      const chunks = await lastValueFrom(make().chunks({ messages: MESSAGES }).pipe(toArray()));
      expect(chunks).toHaveLength(3);
      expect(chunks[2]?.usage?.total_tokens).toBe(13);
    });

    it('accepts a full ChatCompletionRequest with provider options, forwarded as is', async () => {
      await lastValueFrom(
        make().json({
          model: 'deepseek-chat',
          messages: MESSAGES,
          stream: false,
          thinking: { type: 'enabled' },
        } as never),
      );
      expect(bodies[0]).toMatchObject({ stream: true, thinking: { type: 'enabled' } });
    });
  });

  describe('validation before anything is sent', () => {
    beforeEach(() => serve((_req, res) => answerWith(res)));

    it('an invalid request is a RequestError with issues, and no request reaches the server', async () => {
      const error = await failure(make().json({ messages: [] } as never));
      expect(isRequestError(error)).toBe(true);
      expect((error as { code: string }).code).toBe('invalid_request');
      expect((error as { issues: string[] }).issues.join('\n')).toContain('messages');
      const bad = await failure(make().stream({ messages: MESSAGES, temperature: 9 }));
      expect((bad as { issues: string[] }).issues.join('\n')).toContain('temperature');
      await delay(20);
      expect(server.requests).toHaveLength(0);
    });

    it('a request without a model on a client without one is a RequestError that says so', async () => {
      const error = await failure(make({ provider: 'openai-compatible' }).json({ messages: MESSAGES }));
      expect(isRequestError(error)).toBe(true);
      expect((error as Error).message).toContain('no `model`');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('retries', () => {
    it('429 with Retry-After: retried after the hint, two requests in all', async () => {
      await serve((_req, res, n) => {
        if (n === 1) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
          return res.end('{"error":{"message":"rate limited","type":"rate_limit_reached_error"}}');
        }
        answerWith(res);
      });
      const output = await lastValueFrom(make().json({ messages: MESSAGES }));
      expect(output.message.content).toBe('你好');
      expect(server.requests).toHaveLength(2);
    });

    it('429 with Retry-After: 1 waits the hint (about a second), not the 10–20 ms backoff', async () => {
      const arrivals: number[] = [];
      await serve((_req, res, n) => {
        arrivals.push(Date.now());
        if (n === 1) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
          return res.end('{"error":{"message":"rate limited","type":"rate_limit_reached_error"}}');
        }
        answerWith(res);
      });
      const output = await lastValueFrom(make().json({ messages: MESSAGES }));
      expect(output.message.content).toBe('你好');
      expect(arrivals).toHaveLength(2);
      expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(900);
    });

    it.each([
      [
        'Moonshot exceeded_current_quota_error',
        '{"error":{"message":"quota exceeded","type":"exceeded_current_quota_error"}}',
      ],
      [
        'OpenAI-style insufficient_quota',
        '{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}',
      ],
    ])('a 429 with a used-up quota (%s) is not retried, even with a Retry-After', async (_name, body) => {
      await serve((_req, res) => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(body);
      });
      const error = (await failure(make().json({ messages: MESSAGES }))) as UpstreamHttpError;
      expect(isUpstreamHttpError(error) && error.status === 429).toBe(true);
      expect(server.requests).toHaveLength(1);
    });

    it('503 twice, then success: three requests', async () => {
      await serve((_req, res, n) => {
        if (n <= 2) {
          res.writeHead(503, { 'content-type': 'application/json' });
          return res.end('{"error":{"message":"Server overloaded","type":"server_error"}}');
        }
        answerWith(res);
      });
      const chunks = await lastValueFrom(make().stream({ messages: MESSAGES }).pipe(toArray()));
      expect(chunks.map((c) => c.message.content).join('')).toBe('你好');
      expect(server.requests).toHaveLength(3);
    });

    it('503 every time: the UpstreamHttpError after 1 + count requests', async () => {
      await serve((_req, res) => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"Server overloaded","type":"server_error"}}');
      });
      const error = (await failure(make().json({ messages: MESSAGES }))) as UpstreamHttpError;
      expect(isUpstreamHttpError(error) && error.status === 503).toBe(true);
      expect(server.requests).toHaveLength(3);
    });

    it('401 is never retried', async () => {
      await serve((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"Authentication Fails","type":"authentication_error"}}');
      });
      const error = (await failure(make().json({ messages: MESSAGES }))) as UpstreamHttpError;
      expect(error.status).toBe(401);
      expect(server.requests).toHaveLength(1);
    });

    it('a connection reset before the response is retried', async () => {
      await serve((req, res, n) => (n === 1 ? req.socket.destroy() : answerWith(res)));
      const output = await lastValueFrom(make().json({ messages: MESSAGES }));
      expect(output.message.content).toBe('你好');
      expect(server.requests).toHaveLength(2);
    });

    it('stream: a reset after the first chunk is not retried — the error surfaces, no duplicated content', async () => {
      await serve((req, res) => {
        sse(res);
        res.write(frame('你') + frame('好'), () => setTimeout(() => req.socket.destroy(), 30));
      });
      const seen: string[] = [];
      const error = await new Promise((resolve) =>
        make()
          .stream({ messages: MESSAGES })
          .subscribe({ next: (c) => seen.push(c.message.content), error: resolve }),
      );
      expect(isNetworkError(error)).toBe(true);
      expect(seen.join('')).toBe('你好');
      expect(server.requests).toHaveLength(1);
    });

    it('json: a reset mid-stream is retried (nothing reached the caller yet), one clean answer', async () => {
      await serve((req, res, n) => {
        if (n > 1) return answerWith(res);
        sse(res);
        res.write(frame('你'), () => setTimeout(() => req.socket.destroy(), 30));
      });
      const outputs = await lastValueFrom(make().json({ messages: MESSAGES }).pipe(toArray()));
      expect(outputs).toHaveLength(1);
      expect(outputs[0]?.message.content).toBe('你好');
      expect(server.requests).toHaveLength(2);
    });

    it('retry: false sends one request', async () => {
      await serve((_req, res) => {
        res.writeHead(503);
        res.end();
      });
      await failure(make({ retry: false }).json({ messages: MESSAGES }));
      expect(server.requests).toHaveLength(1);
    });
  });

  describe('timeouts', () => {
    it('a server that never answers: TimeoutError("headers"), not retried by default (the request may sit in a queue)', async () => {
      await serve(() => undefined);
      const error = await failure(make({ timeouts: { headers: 200 }, retry: 1 }).json({ messages: MESSAGES }));
      expect(isTimeoutError(error)).toBe(true);
      expect(error).toMatchObject({ phase: 'headers' });
      expect(server.requests).toHaveLength(1);
    });

    it('a server that never answers: TimeoutError("headers"), retried when the policy lists the phase', async () => {
      await serve(() => undefined);
      const error = await failure(
        make({ timeouts: { headers: 200 }, retry: { count: 1, timeoutPhases: ['connect', 'headers'] } }).json({
          messages: MESSAGES,
        }),
      );
      expect(isTimeoutError(error)).toBe(true);
      expect(error).toMatchObject({ phase: 'headers' });
      expect(server.requests).toHaveLength(2);
    });

    it('the defaults give up a provider that sends nothing within 100 s, deadline and one more attempt included, while a keep-alive queue gets its 10 minutes', () => {
      // A call that never gets going: attempts are started until `deadline`, the last one then ends by its own
      // headers or silence deadline (the old 600 s headers deadline held a client 130 s).
      expect(DEFAULT_TIMEOUTS.deadline + Math.max(DEFAULT_TIMEOUTS.headers, DEFAULT_TIMEOUTS.silence)).toBeLessThan(100_000);
      expect(DEFAULT_TIMEOUTS.firstChunk).toBeGreaterThanOrEqual(600_000);
    });

    it('headers then nothing at all (no keep-alive): TimeoutError("first_chunk") after `silence`, not retried', async () => {
      await serve((_req, res) => sse(res));
      const started = Date.now();
      const error = await failure(make({ timeouts: { silence: 300 }, retry: 2 }).stream({ messages: MESSAGES }));
      expect(error).toMatchObject({ phase: 'first_chunk', timeoutMs: 300 });
      expect(Date.now() - started).toBeLessThan(5_000); // one 300 ms silence, not the 600 s first-chunk deadline
      expect(server.requests).toHaveLength(1);
    });

    it('a queue that says so with keep-alive comments for longer than `silence` is waited for', async () => {
      await serve((_req, res) => {
        sse(res);
        const timer = setInterval(() => res.write(': keep-alive\n\n'), 30);
        res.on('close', () => clearInterval(timer));
        setTimeout(() => {
          clearInterval(timer);
          res.end(ANSWER.join(''));
        }, 900);
      });
      const answer = await lastValueFrom(make({ timeouts: { silence: 300 } }).json({ messages: MESSAGES }));
      expect(answer.message.content).toBe('你好');
    });

    it('silence counts from the request going out: a wait for a free connection is not the provider\'s silence', async () => {
      await serve((_req, res, n) => {
        sse(res);
        // The first answer holds the only connection for 600 ms (with a chunk at once: it is not silent itself).
        if (n === 1) {
          res.write(frame('你'));
          setTimeout(() => res.end([frame('好'), FINISH, 'data: [DONE]\n\n'].join('')), 600);
        } else res.end(ANSWER.join(''));
      });
      const c = make({ connections: 1, timeouts: { silence: 300 } });
      const first = lastValueFrom(c.json({ messages: MESSAGES })).catch((error: unknown) => error); // never unhandled
      await delay(50);
      const second = await lastValueFrom(c.json({ messages: MESSAGES })); // waited ~550 ms for the connection
      expect(second.message.content).toBe('你好');
      expect(await first).toMatchObject({ message: { content: '你好' } });
    });

    it('no retry after the call\'s deadline: a provider that hangs up without a word is not asked again and again', async () => {
      await serve((req) => setTimeout(() => req.socket.destroy(), 150));
      const started = Date.now();
      const error = await failure(
        make({ timeouts: { deadline: 500 }, retry: { count: 10, baseDelayMs: 10, maxDelayMs: 20, minDelayMs: 0 } }).json({ messages: MESSAGES }),
      );
      expect(error).toMatchObject({ code: 'network' });
      expect(server.requests.length).toBeGreaterThanOrEqual(2);
      expect(server.requests.length).toBeLessThanOrEqual(5); // ~150 ms apart until 500 ms, not 11
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('headers then only keep-alive comments: TimeoutError("first_chunk"), not retried, the connection closed', async () => {
      await serve((_req, res) => {
        sse(res);
        const timer = setInterval(() => res.write(': keep-alive\n\n'), 30);
        res.on('close', () => clearInterval(timer));
      });
      const started = Date.now();
      const error = await failure(make({ timeouts: { firstChunk: 300 } }).stream({ messages: MESSAGES }));
      expect(isTimeoutError(error)).toBe(true);
      expect(error).toMatchObject({ phase: 'first_chunk', timeoutMs: 300 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      await socketClosedAt;
      expect(server.requests).toHaveLength(1);
    });

    it('a stall mid-stream with keep-alive comments: TimeoutError("idle") — comments do not reset it', async () => {
      await serve((_req, res) => {
        sse(res);
        res.write(frame('你'));
        const timer = setInterval(() => res.write(': keep-alive\n\n'), 30);
        res.on('close', () => clearInterval(timer));
      });
      const seen: string[] = [];
      const error = await new Promise((resolve) =>
        make({ timeouts: { idle: 300 } })
          .stream({ messages: MESSAGES })
          .subscribe({ next: (c) => seen.push(c.message.content), error: resolve }),
      );
      expect(isTimeoutError(error)).toBe(true);
      expect(error).toMatchObject({ phase: 'idle', timeoutMs: 300 });
      await socketClosedAt;
    });

    it('defaults are documented: connect 10 s, headers 30 s, silence 30 s, first chunk 10 min, idle 60 s, error body 5 s, deadline 60 s, total off', () => {
      expect(DEFAULT_TIMEOUTS).toEqual({
        connect: 10_000,
        headers: 30_000,
        silence: 30_000,
        firstChunk: 600_000,
        idle: 60_000,
        errorBody: 5_000,
        deadline: 60_000,
      });
    });

    it('timeouts.errorBody reaches the request: a stalled 503 body is a 503 (retried), not a first-chunk timeout', async () => {
      await serve((_req, res, n) => {
        if (n > 1) return answerWith(res);
        res.writeHead(503, { 'content-type': 'application/json' });
        res.write('{"error":{"message":"overloaded"'); // then nothing, and no end
      });
      const answer = await lastValueFrom(
        make({ timeouts: { firstChunk: 1_500, errorBody: 200 } }).json({ messages: MESSAGES }),
      );
      expect(answer.done).toBe(true);
      expect(server.requests).toHaveLength(2);
    });
  });

  describe('cancellation', () => {
    it('unsubscribing mid-stream closes the upstream connection promptly', async () => {
      await serve((_req, res) => {
        sse(res);
        let n = 0;
        const timer = setInterval(() => res.write(frame(String(n++))), 5);
        res.on('close', () => clearInterval(timer));
      });
      await lastValueFrom(make().stream({ messages: MESSAGES }).pipe(take(3)));
      const at = Date.now();
      expect((await socketClosedAt) - at).toBeLessThan(promptBound(1000));
    });

    it('an AbortSignal aborts the request and is not retried', async () => {
      await serve((_req, res) => sse(res));
      const controller = new AbortController();
      const seen = failure(make().json({ messages: MESSAGES }, { signal: controller.signal }));
      await delay(50);
      controller.abort();
      expect((await seen) as Error).toMatchObject({ name: 'AbortedError' });
      await socketClosedAt;
      expect(server.requests).toHaveLength(1);
    });

    it('an abort during a Retry-After wait ends the call at once with AbortedError, no further request', async () => {
      await serve((_req, res) => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '5' });
        res.end('{"error":{"message":"slow down","type":"rate_limit_reached_error"}}');
      });
      for (const call of ['json', 'stream', 'chunks', 'sse'] as const) {
        const c = make();
        const before = server.requests.length;
        const controller = new AbortController();
        const started = Date.now();
        const seen = failure<unknown>(c[call]({ messages: MESSAGES }, { signal: controller.signal }));
        setTimeout(() => controller.abort(), 100);
        const error = await seen;
        expect(isAbortedError(error)).toBe(true);
        expect(Date.now() - started).toBeLessThan(promptBound(2000));
        await delay(20);
        expect(server.requests.length - before).toBe(1);
        await c.close();
      }
    });

    it('close() ends the pool; later calls error with a ConfigError', async () => {
      await serve((_req, res) => answerWith(res));
      const c = make();
      await c.close();
      expect(isConfigError(await failure(c.json({ messages: MESSAGES })))).toBe(true);
    });

    it('close(graceMs) lets a request in flight finish within the grace, and aborts one that outlasts it', async () => {
      await serve((_req, res, n) => {
        sse(res);
        res.write(ANSWER[0]);
        const rest = ANSWER.slice(1).join('');
        if (n === 1) setTimeout(() => res.end(rest), 150); // done within the grace
        // the second never ends by itself
      });
      const quick = make();
      const answer = lastValueFrom(quick.json({ messages: MESSAGES }));
      await delay(50);
      await quick.close(1_000);
      expect((await answer).message.content).toBe('你好');

      const slow = make();
      const cut = failure(slow.stream({ messages: MESSAGES }));
      await delay(50);
      const started = Date.now();
      await slow.close(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(Date.now() - started).toBeLessThan(promptBound(2_000));
      const error = await cut; // cut by our own close: not retried, and it says why
      expect(isConfigError(error)).toBe(true);
      expect((error as Error).message).toMatch(/connection pool .* was closed or destroyed/);
      await socketClosedAt;
    });
  });

  describe('configuration', () => {
    beforeEach(() => serve((_req, res) => answerWith(res)));

    it('presets: base URLs, default models, key env vars', () => {
      expect(PROVIDERS.moonshot).toEqual({
        baseUrl: 'https://api.moonshot.ai/v1',
        model: 'kimi-k2-0905-preview',
        apiKeyEnv: 'MOONSHOT_API_KEY',
        prefill: 'moonshot',
        quirks: [
          'usage inside choices[i] of the finishing chunk, and again in a choices: [] chunk with include_usage (counted once)',
          'tool-call fragments may omit index; ids like name:N; builtin_function calls ($web_search)',
          'thinking models stream reasoning_content; no keep-alive comments',
        ],
      });
      expect(PROVIDERS['moonshot-cn'].baseUrl).toBe('https://api.moonshot.cn/v1');
      expect(PROVIDERS.deepseek).toMatchObject({
        baseUrl: 'https://api.deepseek.com',
        model: 'deepseek-chat',
        apiKeyEnv: 'DEEPSEEK_API_KEY',
        prefill: 'deepseek',
      });
      expect([PROVIDERS.mistral.prefill, PROVIDERS.qwen.prefill, PROVIDERS.openai.prefill]).toEqual(['mistral', 'moonshot', false]);
      const moonshot = createChatClient({ provider: 'moonshot-cn', env: { MOONSHOT_API_KEY: KEY } });
      expect([moonshot.baseUrl, moonshot.model]).toEqual(['https://api.moonshot.cn/v1', 'kimi-k2-0905-preview']);
      void moonshot.close();
    });

    it('presets of the OpenAI-compatible providers people use most: base URL, key variable, quirks', () => {
      const expected: Record<string, [string, string | undefined]> = {
        openai: ['https://api.openai.com/v1', 'OPENAI_API_KEY'],
        openrouter: ['https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY'],
        groq: ['https://api.groq.com/openai/v1', 'GROQ_API_KEY'],
        mistral: ['https://api.mistral.ai/v1', 'MISTRAL_API_KEY'],
        together: ['https://api.together.ai/v1', 'TOGETHER_API_KEY'],
        xai: ['https://api.x.ai/v1', 'XAI_API_KEY'],
        qwen: ['https://dashscope-intl.aliyuncs.com/compatible-mode/v1', 'DASHSCOPE_API_KEY'],
        'qwen-cn': ['https://dashscope.aliyuncs.com/compatible-mode/v1', 'DASHSCOPE_API_KEY'],
        zhipu: ['https://open.bigmodel.cn/api/paas/v4', 'ZHIPUAI_API_KEY'],
        ollama: ['http://localhost:11434/v1', undefined],
        vllm: ['http://localhost:8000/v1', 'VLLM_API_KEY'],
        llamacpp: ['http://localhost:8080/v1', 'LLAMA_API_KEY'],
      };
      for (const [name, [baseUrl, apiKeyEnv]] of Object.entries(expected)) {
        const preset = PROVIDERS[name as keyof typeof PROVIDERS];
        expect([name, preset.baseUrl, preset.apiKeyEnv]).toEqual([name, baseUrl, apiKeyEnv]);
        expect(preset.quirks.length).toBeGreaterThan(0);
        expect(Object.isFrozen(preset.quirks)).toBe(true);
      }
      const local = Object.entries(PROVIDERS)
        .filter(([, preset]) => preset.apiKeyOptional === true)
        .map(([name]) => name);
      expect(local).toEqual(['ollama', 'vllm', 'llamacpp']);
    });

    it('a preset takes its key from its own variable, refuses to start without a required one, and runs keyless locally', () => {
      const groq = createChatClient({ provider: 'groq', env: { GROQ_API_KEY: 'gsk_test' } });
      expect(groq.baseUrl).toBe('https://api.groq.com/openai/v1');
      void groq.close();
      expect(() => createChatClient({ provider: 'mistral', env: {} })).toThrow(
        /no API key for 'mistral'; pass \{ apiKey \} or set MISTRAL_API_KEY/,
      );
      const ollama = createChatClient({ provider: 'ollama', env: {} });
      expect([ollama.baseUrl, ollama.model]).toEqual(['http://localhost:11434/v1', undefined]);
      void ollama.close();
      const vllm = createChatClient({ provider: 'vllm', env: {}, baseUrl: 'http://gpu-box:8000/v1' });
      expect(vllm.baseUrl).toBe('http://gpu-box:8000/v1');
      void vllm.close();
    });

    it('an upstream that quotes the key it was sent (any shape) in an in-band error does not get it to the caller', async () => {
      const opaque = 'moonshot-opaque-7f3a9c2e41'; // nothing like sk-…: only the literal key can redact it
      await server.close();
      await serve((req, res) => {
        sse(res);
        const quoted = String(req.headers.authorization).slice('Bearer '.length);
        res.write(ANSWER[0]);
        res.end(`data: {"error":{"message":"key ${quoted} was revoked","type":"auth","code":"${quoted}"}}\n\n`);
      });
      const error = await failure(make({ apiKey: opaque, retry: false }).stream({ messages: MESSAGES }));
      expect(isUpstreamStreamError(error)).toBe(true);
      for (const view of [(error as Error).message, JSON.stringify(error), inspect(error)])
        expect(view).not.toContain(opaque);
      expect((error as Error).message).toContain('[redacted]');
    });

    it('a key read from a CRLF .env file (trailing "\\r\\n") is trimmed and accepted', async () => {
      await server.close();
      await serve((req, res) => {
        if (req.headers.authorization !== `Bearer ${KEY}`) {
          res.writeHead(401, { 'content-type': 'application/json' });
          return res.end('{"error":{"message":"Authentication Fails","type":"authentication_error"}}');
        }
        answerWith(res);
      });
      make({ apiKey: undefined, env: { DEEPSEEK_API_KEY: `${KEY}\r\n` } });
      const output = await lastValueFrom(client.json({ messages: MESSAGES }));
      expect(output.message.content).toBe('你好');
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('a key undici refuses to send is a ConfigError that says how to fix it: not retried, nothing sent, key not echoed', async () => {
      const retries: unknown[] = [];
      const badKey = `${KEY.slice(0, 10)}\n${KEY.slice(10)}`; // a line break inside: trimming cannot save it
      const error = await failure(
        make({ apiKey: badKey, retry: { onRetry: (event) => retries.push(event) } }).json({ messages: MESSAGES }),
      );
      expect(isConfigError(error)).toBe(true);
      expect((error as Error).message).toMatch(/invalid authorization header.*API key.*line breaks/);
      for (const view of [(error as Error).message, JSON.stringify(error), inspect(error)]) {
        expect(view).not.toContain(KEY.slice(0, 10));
        expect(view).not.toContain(KEY.slice(10));
      }
      expect(retries).toHaveLength(0);
      await delay(20);
      expect(server.requests).toHaveLength(0);
    });

    it('the key comes from the env var when not given', async () => {
      make({ apiKey: undefined, env: { DEEPSEEK_API_KEY: KEY } });
      await lastValueFrom(client.json({ messages: MESSAGES }));
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('misconfiguration is a ConfigError that says how to fix it', () => {
      expect(() => createChatClient({ provider: 'deepseek', env: {} })).toThrow(
        /pass \{ apiKey \} or set DEEPSEEK_API_KEY/,
      );
      expect(() => createChatClient({ provider: 'openai-compatible' })).toThrow(/baseUrl/);
      expect(() => createChatClient({ provider: 'moonshot', env: { MOONSHOT_API_KEY: ' ' } })).toThrow(
        /MOONSHOT_API_KEY/,
      );
      expect(() => createChatClient({ provider: 'nope' as never })).toThrow(/unknown provider/);
      expect(() => createChatClient({ baseUrl: 'http://x', retry: { count: -2 } })).toThrow(/non-negative integer/);
    });

    it('the API key never shows in toString, JSON.stringify or util.inspect of the client, nor in errors', async () => {
      const c = make();
      for (const view of [String(c), JSON.stringify(c), inspect(c), inspect(c, { showHidden: true, depth: 5 })]) {
        expect(view).not.toContain(KEY);
      }
      expect(JSON.stringify(c)).toContain('[redacted]');
      await server.close();
      await serve((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              message: `Invalid key ${KEY} (Authorization: Bearer ${KEY})`,
              type: 'invalid_authentication_error',
            },
          }),
        );
      });
      const error = await failure(make().json({ messages: MESSAGES }));
      for (const view of [String(error), (error as Error).message, JSON.stringify(error), inspect(error)])
        expect(view).not.toContain(KEY);
    });
  });
});

describe('createChatClient: timeouts checked at creation', () => {
  it('a negative or NaN deadline is a ConfigError at creation, naming the field, not a deadline silently off', () => {
    for (const [field, value] of [['connect', -1], ['headers', -1], ['firstChunk', Number.NaN], ['idle', -5], ['total', Number.NaN], ['json', -5], ['errorBody', -1]] as const) {
      const make = (): unknown => createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeouts: { [field]: value } });
      expect(make).toThrow(ConfigError);
      expect(make).toThrow(new RegExp(`timeouts\\.${field}`));
    }
    expect(() => createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeouts: { idle: 0, json: undefined } })).not.toThrow();
  });
});
