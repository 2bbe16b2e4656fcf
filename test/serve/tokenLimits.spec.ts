/**
 * The serving options' token limits in one process (the memory store), over real HTTP (Express's chatRouter, and the
 * web handlers for the headers): tokens reserved at admission and settled with the upstream's usage — on
 * `/v1/chat/completions` streams whose client did not ask for it too —, a stream cancelled at its 200th piece of 1,000
 * (and a /v1/messages one) charged for what it emitted, the x-ratelimit-*-tokens headers before the first byte, and a spent budget refused with
 * 429 insufficient_quota that the openai SDK does not retry.
 */
import express from 'express';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { createChatClient } from '../../src/client/createChatClient';
import { chatRouter } from '../../src/express/chatRouter';
import { countMessageTokens } from '../../src/serve/countMessageTokens';
import type { RateLimitSettleEvent, RateLimitsConfig } from '../../src/serve/RateLimitsConfig';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { startServer } from '../helpers/startServer';
import { startHonoChat } from '../web/startHonoChat';

const KEY = 'token-limits-key-0123456789';
const AUTH = { Authorization: `Bearer ${KEY}` };
const messages = [{ role: 'user', content: 'Tell me a long story about tokens.' }];

let emulator: Emulator;
const closers: Array<() => Promise<void>> = [];
/** chatRouter under `limits`, with a count of the requests that reached it; `settled` collects onSettle's events. */
const start = async (limits: RateLimitsConfig, resumable = false, upstream = emulator.url) => {
  const settled: RateLimitSettleEvent[] = [];
  const client = createChatClient({ baseUrl: upstream, apiKey: 'sk-up', model: 'deepseek-chat', retry: false });
  const app = express();
  let requests = 0;
  app.use((_req, _res, next) => {
    requests++;
    next();
  });
  app.use(chatRouter({ client, apiKeys: [KEY], heartbeatMs: 0, limits: { ...limits, onSettle: (event) => settled.push(event) }, ...(resumable ? { resumable: true } : {}) }));
  const server = await startServer(app);
  closers.push(server.close, () => client.close());
  return { url: server.url, settled, requests: () => requests };
};
const until = async (check: () => boolean, withinMs = 10_000): Promise<void> => {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 7 });
});
afterAll(async () => {
  for (const close of closers) await close();
  await emulator.close();
});

/** POSTs `body` to `path` and goes away (the socket destroyed) once `count` lines its response wrote pass `isPiece`. */
const leaveAt = (url: string, path: string, body: string, count: number, isPiece: (line: string) => boolean): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' } }, (res) => {
      let pieces = 0;
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        const parts = (rest + text).split('\n');
        rest = parts.pop() ?? '';
        pieces += parts.filter(isPiece).length;
        if (pieces >= count) {
          req.destroy(); // the client goes away
          resolve();
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });

describe('token limits, in one process', () => {
  it('sends x-ratelimit-*-tokens and the tokens policy before the first byte, alike on node and web', async () => {
    const limits = { tokensPerMinute: 100_000, reserveOutputTokens: 500 };
    const { url } = await start(limits);
    const client = createChatClient({ baseUrl: emulator.url, apiKey: 'sk-up', model: 'deepseek-chat', retry: false });
    const hono = await startHonoChat({ client, apiKeys: [KEY], heartbeatMs: 0, limits });
    closers.push(hono.close, () => client.close());
    const prompt = countMessageTokens({ messages } as never).input_tokens;
    for (const base of [url, hono.url]) {
      const res = await rawRequest(`${base}/chat/stream`, { headers: AUTH, body: { messages, max_tokens: 300 } });
      expect(res.status).toBe(200);
      expect(res.headers).toMatchObject({
        'x-ratelimit-limit-tokens': '100000',
        'x-ratelimit-remaining-tokens': String(100_000 - prompt - 300), // the reservation: the prompt + max_tokens (under the cap)
        'ratelimit-policy': '"tokens";q=100000;w=60',
      });
      expect(res.headers['x-ratelimit-reset-tokens']).toMatch(/^\d+ms$/);
      expect(res.headers['ratelimit']).toMatch(/^"tokens";r=\d+;t=\d+$/);
    }
  });

  it('settles with the upstream usage, on a /v1 stream whose client did not ask for it too', async () => {
    const { url, settled } = await start({ tokensPerMinute: 1_000_000 });
    const body = { model: 'deepseek-chat', messages, stream: true };
    const asked = await rawRequest(`${url}/v1/chat/completions`, { headers: AUTH, body: { ...body, stream_options: { include_usage: true } } });
    const usage = asked.body
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { usage?: { prompt_tokens: number; completion_tokens: number } })
      .find((chunk) => chunk.usage !== undefined && chunk.usage !== null)?.usage;
    expect(usage).toBeDefined();
    await until(() => settled.length === 1);
    expect(settled[0]).toMatchObject({ estimated: false, used: (usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0) });
    const plain = await rawRequest(`${url}/v1/chat/completions`, { headers: AUTH, body });
    expect(plain.body).not.toContain('"usage"'); // not written: the client did not ask
    await until(() => settled.length === 2);
    expect(settled[1]).toMatchObject({ estimated: false, used: settled[0]?.used });
    // and one answer, on each endpoint: charged its usage
    const whole = await rawRequest(`${url}/v1/chat/completions`, { headers: AUTH, body: { ...body, stream: false } });
    const { usage: told } = JSON.parse(whole.body) as { usage: { prompt_tokens: number; completion_tokens: number } };
    await until(() => settled.length === 3);
    expect(settled[2]).toMatchObject({ estimated: false, used: told.prompt_tokens + told.completion_tokens });
    for (const path of ['/chat/json', '/chat/stream', '/chat/sse']) {
      await rawRequest(`${url}${path}`, { headers: AUTH, body: { messages } });
    }
    await until(() => settled.length === 6);
    expect(settled.slice(3).map((event) => event.estimated)).toEqual([false, false, false]);
  });

  it('settles an answer whose upstream sent no usage at the estimate, flagged estimated, on every endpoint (/v1/messages too: its zero usage is none)', async () => {
    // an OpenAI-compatible upstream that never reports a usage (asked for it or not): "Hello, world", then [DONE]
    const frame = (fields: Record<string, unknown>): string => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields })}\n\n`;
    const upstream = await startServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (text: string) => (body += text));
      req.on('end', () => {
        if ((JSON.parse(body) as { stream?: boolean }).stream !== true) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello, world' }, finish_reason: 'stop' }] }));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          frame({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] }) +
            frame({ choices: [{ index: 0, delta: { content: ', world' }, finish_reason: null }] }) +
            frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
            'data: [DONE]\n\n',
        );
      });
    });
    closers.push(upstream.close);
    const { url, settled } = await start({ tokensPerMinute: 1_000_000, reserveOutputTokens: 1000 }, false, upstream.url);
    const prompt = countMessageTokens({ messages } as never).input_tokens;
    const asks: Array<[string, Record<string, unknown>]> = [
      ['/chat/stream', { messages }],
      ['/chat/json', { messages }],
      ['/v1/chat/completions', { model: 'deepseek-chat', messages, stream: true }],
      ['/v1/messages', { model: 'deepseek-chat', messages, max_tokens: 1000, stream: true }],
      ['/v1/messages', { model: 'deepseek-chat', messages, max_tokens: 1000 }],
    ];
    for (const [path, body] of asks) {
      const res = await rawRequest(`${url}${path}`, { headers: AUTH, body });
      expect([path, res.status, res.body]).toEqual([path, 200, expect.stringContaining('world')]);
      await until(() => settled.length === 1);
      const [event] = settled.splice(0);
      // the prompt and what was emitted, as every endpoint estimates an answer without usage; not 0 as if it were told
      expect([path, body.stream, event?.estimated]).toEqual([path, body.stream, true]);
      expect(event?.used).toBeGreaterThanOrEqual(prompt);
    }
  });

  it('settles a resumable answer (its producer counts what it logs) as the same answer not logged', async () => {
    const plain = await start({ tokensPerMinute: 1_000_000 });
    const logged = await start({ tokensPerMinute: 1_000_000 }, true);
    for (const path of ['/chat/stream', '/chat/sse']) {
      expect((await rawRequest(`${plain.url}${path}`, { headers: AUTH, body: { messages } })).headers['chatflux-stream-id']).toBeUndefined();
      expect((await rawRequest(`${logged.url}${path}`, { headers: AUTH, body: { messages } })).headers['chatflux-stream-id']).toBeDefined();
    }
    await until(() => plain.settled.length === 2 && logged.settled.length === 2);
    expect(logged.settled.map((event) => event.estimated)).toEqual([false, false]);
    expect(logged.settled.map((event) => event.used)).toEqual(plain.settled.map((event) => event.used));
  });

  it('charges a stream cancelled at its 200th piece of 1,000 for about 200 answer tokens (±10 %), flagged estimated', async () => {
    const { url, settled } = await start({ tokensPerMinute: 1_000_000, reserveOutputTokens: 1000 });
    const body = JSON.stringify({ model: 'deepseek-chat#tokens=1000;pace=4', messages, max_tokens: 1000 });
    const prompt = countMessageTokens({ messages } as never).input_tokens;
    await leaveAt(url, '/chat/stream', body, 200, (line) => line.includes('"content"')); // at its 200th piece
    await until(() => settled.length === 1);
    const [event] = settled;
    expect(event).toMatchObject({ estimated: true, reserved: prompt + 1000 });
    const output = (event?.used ?? 0) - prompt;
    expect(output).toBeGreaterThanOrEqual(180);
    expect(output).toBeLessThanOrEqual(220);
  });

  it('settles /v1/messages and /chat/ui answers with their usage, and a /v1/messages stream cancelled at its 200th delta for about 200 answer tokens, flagged estimated', async () => {
    const { url, settled } = await start({ tokensPerMinute: 1_000_000, reserveOutputTokens: 1000 });
    const whole = await rawRequest(`${url}/v1/messages`, { headers: AUTH, body: { model: 'deepseek-chat', messages, max_tokens: 1000, stream: true } });
    const delta = whole.body
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; usage?: { input_tokens: number; cache_read_input_tokens: number; output_tokens: number } })
      .find((event) => event.type === 'message_delta');
    const told = delta?.usage;
    expect(told).toBeDefined();
    await until(() => settled.length === 1);
    expect(settled[0]).toMatchObject({ estimated: false, used: (told?.input_tokens ?? 0) + (told?.cache_read_input_tokens ?? 0) + (told?.output_tokens ?? 0) });
    const ui = await rawRequest(`${url}/chat/ui`, { headers: AUTH, body: { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: messages[0]?.content }] }] } });
    expect(ui.status).toBe(200);
    await until(() => settled.length === 2);
    expect(settled[1]).toMatchObject({ estimated: false });
    expect(settled[1]?.used).toBeGreaterThan(0);
    settled.splice(0);
    const body = JSON.stringify({ model: 'deepseek-chat#tokens=1000;pace=4', messages, max_tokens: 1000, stream: true });
    await leaveAt(url, '/v1/messages', body, 200, (line) => line.startsWith('data: ') && line.includes('"content_block_delta"')); // at its 200th delta
    await until(() => settled.length === 1);
    const [event] = settled;
    expect(event).toMatchObject({ estimated: true });
    const output = (event?.used ?? 0) - ((event?.reserved ?? 0) - 1000); // the reservation: the prompt + 1000
    expect(output).toBeGreaterThanOrEqual(180);
    expect(output).toBeLessThanOrEqual(230);
  });

  it('charges the prompt of a request whose client went away before its first byte (the upstream read it), and nothing for an upstream that refused', async () => {
    const { url, settled } = await start({ tokensPerMinute: 1_000_000, reserveOutputTokens: 1000 });
    const prompt = countMessageTokens({ messages } as never).input_tokens;
    for (const path of ['/chat/stream', '/chat/json']) {
      const asked = emulator.waitForRequest((request) => String(JSON.stringify(request.body)).includes(`gone-early${path}`));
      const gone = new AbortController();
      const answered = rawRequest(`${url}${path}`, {
        headers: AUTH,
        body: { model: 'deepseek-chat#headers-delay=5000', messages: [...messages, { role: 'user', content: `gone-early${path}` }], max_tokens: 1000 },
        signal: gone.signal,
      });
      await asked; // the upstream has the prompt
      gone.abort();
      await answered.catch(() => undefined); // no response yet: the socket hangs up
      await until(() => settled.length === 1);
      const [event] = settled.splice(0);
      const sent = countMessageTokens({ messages: [...messages, { role: 'user', content: `gone-early${path}` }] } as never).input_tokens;
      expect([path, event]).toMatchObject([path, { estimated: true, used: sent, reserved: sent + 1000 }]);
    }
    const refused = await rawRequest(`${url}/chat/json`, { headers: AUTH, body: { model: 'deepseek-chat#status=503', messages } });
    expect(refused.status).toBeGreaterThanOrEqual(500); // the upstream refused: nothing read, nothing charged
    await until(() => settled.length === 1);
    expect(settled[0]).toMatchObject({ estimated: true, used: 0, reserved: prompt + 1000 });
  });

  it('blocks the request that would cross a budget: 429 insufficient_quota, x-should-retry: false, no Retry-After; the openai SDK does not retry it', async () => {
    const { url, settled, requests } = await start({ tokensPerDay: 1500, reserveOutputTokens: 1000 });
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, maxRetries: 3 });
    const ask = () => openai.chat.completions.create({ model: 'deepseek-chat#tokens=600', messages: messages as never, max_tokens: 1000 });
    await ask(); // ~610 used of 1500
    await until(() => settled.length === 1);
    expect(settled[0]?.used).toBeGreaterThan(600);
    const before = requests();
    let refused: unknown;
    try {
      await ask(); // 610 + its reservation (~1010) would cross 1500
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const error = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.status).toBe(429);
    expect(error.code).toBe('insufficient_quota');
    expect(error.type).toBe('insufficient_quota');
    expect(error.headers?.get('x-should-retry')).toBe('false');
    expect(error.headers?.get('retry-after')).toBeNull();
    expect(error.headers?.get('retry-after-ms')).toBeNull();
    expect(requests() - before).toBe(1); // asked once: not retried
    // a request that fits what is left is still admitted
    const small = await rawRequest(`${url}/chat/json`, { headers: AUTH, body: { model: 'deepseek-chat#tokens=5', messages, max_tokens: 10 } });
    expect(small.status).toBe(200);
    expect(small.headers['ratelimit-policy']).toBe('"budget";q=1500;w=86400');
  });
});

void ({} as AddressInfo);
