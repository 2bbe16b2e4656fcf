import Anthropic from '@anthropic-ai/sdk';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { createChatHandlers } from '../../src/web/createChatHandlers';
import { startNestApp, startExpressRouter } from '../nestjs/startNestApp';
import { startHonoChat } from '../web/startHonoChat';

/**
 * Anthropic's `POST /v1/messages` and `/v1/messages/count_tokens` are the serving core's: Express's router, Nest's
 * module (with and without Nest's body parser) and the web handlers (Hono) answer with the same statuses, headers and
 * bytes — the stream's random id aside — and the `@anthropic-ai/sdk` reads each; while the provider queues, the
 * stream's heartbeat is Anthropic's `ping` event.
 */

const KEY = 'sk-adapters';
const ask = { model: 'deepseek-reasoner', max_tokens: 512, messages: [{ role: 'user', content: 'why is the sky blue?' }] };

interface Target {
  name: string;
  url: string;
  close(): Promise<void>;
}

const post = async (url: string, body: unknown, headers: Record<string, string> = { 'x-api-key': KEY }, path = '/v1/messages', contentType = 'application/json') => {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': contentType, 'anthropic-version': '2023-06-01', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type'), text: (await res.text()).replace(/"id":"msg_[0-9a-f]{32}"/g, '"id":"ID"') };
};

describe('/v1/messages through every adapter', () => {
  let emulator: Emulator;
  let client: ChatClient;
  const targets: Target[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 11 });
    client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0, timeouts: { firstChunk: 5000, idle: 2000 } });
    const heartbeatMs = 50;
    const express = await startExpressRouter({ client: { baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 }, apiKeys: [KEY], heartbeatMs });
    targets.push({ name: 'express', url: express.url, close: express.close });
    for (const bodyParser of [false, true]) {
      const nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, apiKeys: [KEY], heartbeatMs })] }, { bodyParser });
      targets.push({ name: `nest (bodyParser: ${bodyParser})`, url: nest.url, close: nest.close });
    }
    const { messages, countTokens } = createChatHandlers({ client, apiKeys: [KEY], heartbeatMs });
    const hono = await startHonoChat({ client, apiKeys: [KEY] }, (app) => {
      app.post('/v1/messages', (c) => messages(c.req.raw));
      app.post('/v1/messages/count_tokens', (c) => countTokens(c.req.raw));
    });
    targets.push({ name: 'web (Hono)', url: hono.url, close: hono.close });
  });
  afterAll(async () => {
    for (const target of targets) await target.close();
    await client.close();
    await emulator.close();
  });

  it('answer the same bytes: the message, the stream, the token count and the refusals', async () => {
    const results = new Map<string, unknown[]>();
    for (const target of targets) {
      results.set(target.name, [
        await post(target.url, ask),
        await post(target.url, { ...ask, stream: true }, { authorization: `Bearer ${KEY}`, 'anthropic-beta': 'interleaved-thinking-2025-05-14' }),
        await post(target.url, { model: 'deepseek-chat', messages: ask.messages }, undefined, '/v1/messages/count_tokens'),
        await post(target.url, ask, { 'x-api-key': 'sk-wrong' }),
        await post(target.url, '{"messages": ['),
        await post(target.url, { ...ask, stream: true, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }),
        await post(target.url, ask, undefined, '/v1/messages', 'text/plain'),
      ]);
    }
    const [first, ...others] = [...results.values()];
    for (const other of others) expect(other).toEqual(first);
    const [message, stream, count, unauthorized, malformed, serverTool, mediaType] = first as Array<{ status: number; type: string; text: string }>;
    expect(message).toMatchObject({ status: 200, type: 'application/json' });
    expect(JSON.parse(message!.text)).toMatchObject({ type: 'message', role: 'assistant', model: 'deepseek-reasoner', content: [{ type: 'thinking' }, { type: 'text' }], stop_reason: 'end_turn' });
    expect(stream).toMatchObject({ status: 200, type: 'text/event-stream' });
    expect(stream!.text.startsWith('event: message_start\n')).toBe(true);
    expect(stream!.text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(JSON.parse(count!.text)).toEqual({ input_tokens: expect.any(Number) });
    for (const [refusal, status, type] of [[unauthorized!, 401, 'authentication_error'], [malformed!, 400, 'invalid_request_error'], [serverTool!, 400, 'invalid_request_error'], [mediaType!, 415, 'invalid_request_error']] as const) {
      expect(refusal).toMatchObject({ status, type: 'application/json' });
      expect(JSON.parse(refusal.text)).toEqual({ type: 'error', error: { type, message: expect.any(String) } });
    }
  });

  it('pings while the provider queues, and the SDK reads each', async () => {
    for (const target of targets) {
      const queued = await post(target.url, { ...ask, model: 'deepseek-chat#queue=300', stream: true });
      expect(queued.status).toBe(200);
      expect(queued.text).toMatch(/^(event: ping\ndata: \{"type":"ping"\}\n\n)+event: message_start\n/);
      const anthropic = new Anthropic({ baseURL: target.url, apiKey: KEY, maxRetries: 0 });
      const created = await anthropic.messages.create({ ...ask, model: 'deepseek-chat', messages: [{ role: 'user', content: 'hi' }] });
      const streamed = await anthropic.messages.stream({ ...ask, model: 'deepseek-chat#queue=200', messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      expect(streamed.content).toEqual(created.content);
      expect(streamed.usage).toEqual(created.usage);
    }
  });
});
