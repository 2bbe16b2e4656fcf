import OpenAI from 'openai';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { startNestApp, startExpressRouter } from '../nestjs/startNestApp';
import { createChatHandlers } from '../../src/web/createChatHandlers';
import { startHonoChat } from '../web/startHonoChat';

/**
 * `POST /v1/chat/completions` and `GET /v1/models` are the serving core's: Express's router, Nest's module (with and
 * without Nest's body parser) and the web handlers (Hono) answer with the same statuses, headers and bytes — the
 * stream's random id and time aside — and the openai SDK reads each.
 */

const KEY = 'sk-adapters';
const ask = { model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'why is the sky blue?' }] };

interface Target {
  name: string;
  url: string;
  close(): Promise<void>;
}

const post = async (url: string, body: unknown, key = KEY, contentType = 'application/json') => {
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': contentType, authorization: `Bearer ${key}` }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), text: await res.text() };
};
/** The stream's bytes without its per-response id and time. */
const stable = (text: string): string => text.replace(/"id":"chatcmpl-[^"]+"/g, '"id":"ID"').replace(/"created":\d+/g, '"created":0');

describe('/v1 through every adapter', () => {
  let emulator: Emulator;
  let client: ChatClient;
  const targets: Target[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 11 });
    client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0, timeouts: { firstChunk: 2000, idle: 1000 } });
    const express = await startExpressRouter({ client: { baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 }, apiKeys: [KEY] });
    targets.push({ name: 'express', url: express.url, close: express.close });
    for (const bodyParser of [false, true]) {
      const nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, apiKeys: [KEY] })] }, { bodyParser });
      targets.push({ name: `nest (bodyParser: ${bodyParser})`, url: nest.url, close: nest.close });
    }
    const { completions, models } = createChatHandlers({ client, apiKeys: [KEY] });
    const hono = await startHonoChat({ client, apiKeys: [KEY] }, (app) => {
      // Mounted as a user would, beside the three chat paths.
      app.post('/v1/chat/completions', (c) => completions(c.req.raw));
      app.get('/v1/models', (c) => models(c.req.raw));
    });
    targets.push({ name: 'web (Hono)', url: hono.url, close: hono.close });
  });
  afterAll(async () => {
    for (const target of targets) await target.close();
    await client.close();
    await emulator.close();
  });

  it('answer the same bytes: non-streaming, streaming with usage, and the refusals', async () => {
    const results = new Map<string, unknown[]>();
    for (const target of targets) {
      const answers = [
        await post(target.url, ask),
        await post(target.url, { ...ask, stream: true, stream_options: { include_usage: true } }).then((r) => ({ ...r, text: stable(r.text) })),
        await post(target.url, ask, 'sk-wrong'),
        await post(target.url, '{"messages": [', KEY),
        await post(target.url, { ...ask, n: 3 }),
        await post(target.url, ask, KEY, 'text/plain'),
        await fetch(`${target.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } }).then(async (r) => ({ status: r.status, text: await r.text() })),
      ];
      results.set(target.name, answers);
    }
    const [first, ...others] = [...results.values()];
    for (const other of others) expect(other).toEqual(first);
    const [json, stream, unauthorized, malformed, choices, mediaType, models] = first as Array<{ status: number; type: string; cache: string | null; text: string }>;
    expect(json).toMatchObject({ status: 200, type: 'application/json' });
    expect(JSON.parse(json!.text)).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', reasoning_content: expect.any(String) } }] });
    expect(stream).toMatchObject({ status: 200, type: 'text/event-stream', cache: 'no-cache, no-transform' });
    expect(stream!.text.endsWith('data: [DONE]\n\n')).toBe(true);
    for (const [refusal, status, type] of [[unauthorized!, 401, 'authentication_error'], [malformed!, 400, 'invalid_request_error'], [choices!, 400, 'invalid_request_error'], [mediaType!, 415, 'invalid_request_error']] as const) {
      expect(refusal).toMatchObject({ status, type: 'application/json' });
      expect(JSON.parse(refusal.text)).toEqual({ error: { message: expect.any(String), type, param: null, code: expect.any(String) } });
    }
    expect(JSON.parse(models!.text)).toEqual({ object: 'list', data: [{ id: 'deepseek-chat', object: 'model', created: 0, owned_by: 'openai-compatible' }] });
  });

  it('refuse each bad body with 400 in OpenAI\'s error format, the same bytes on every adapter; the upstream is not called', async () => {
    const bad: Array<[string, unknown]> = [
      ['stream_options an array', { ...ask, stream: true, stream_options: [true] }],
      ['stream_options not an object', { ...ask, stream: true, stream_options: 'usage please' }],
      ['include_usage not a boolean', { ...ask, stream: true, stream_options: { include_usage: 'yes' } }],
      ['stream not a boolean', { ...ask, stream: 'yes' }],
      ['n of 2, streamed', { ...ask, stream: true, n: 2 }],
      ['n not a number', { ...ask, n: 'two' }],
      ['no messages', { model: 'deepseek-chat' }],
      ['an array body', [ask]],
      ['a JSON string body', '"hello"'],
      ['an empty body', ''],
    ];
    const before = emulator.requests.at(-1); // the latest request the upstream saw
    const results = new Map<string, unknown[]>();
    for (const target of targets) results.set(target.name, await Promise.all(bad.map(([, body]) => post(target.url, body))));
    const [first, ...others] = [...results.values()];
    for (const other of others) expect(other).toEqual(first);
    (first as Array<{ status: number; type: string; text: string }>).forEach((refusal, i) => {
      expect([bad[i]![0], refusal.status, refusal.type]).toEqual([bad[i]![0], 400, 'application/json']);
      expect(JSON.parse(refusal.text)).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: expect.any(String) } });
    });
    expect(emulator.requests.at(-1)).toBe(before);
  });

  it('the openai SDK reads each', async () => {
    for (const target of targets) {
      const openai = new OpenAI({ baseURL: `${target.url}/v1`, apiKey: KEY, maxRetries: 0 });
      const completion = await openai.chat.completions.create({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'hi' }] });
      const streamed = await openai.chat.completions.stream({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
      expect(streamed.choices[0]!.message.content).toBe(completion.choices[0]!.message.content);
    }
  });
});
