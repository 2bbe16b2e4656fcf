/**
 * `n` > 1 on the contract's endpoints: the contract has one message, so the upstream would generate (and bill) `n`
 * answers of which the client sees the first. The serving core refuses it — 400 `invalid_request` in the endpoint's
 * format, saying why, before anything goes upstream — on every adapter (Express's router, Nest's module, the web
 * handlers), unless the operator allows it (`allowSeveralChoices`); OpenAI's endpoint refuses it either way.
 */
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { startExpressRouter, startNestApp } from '../nestjs/startNestApp';
import { startHonoChat } from '../web/startHonoChat';
import { rawRequest, type RawResponse } from '../helpers/rawRequest';
import { expectErrorBeforeCommit, expectJsonAnswer, expectNdjsonAnswer, expectSseAnswer, type Endpoint } from '../helpers/wireAssertions';

interface Target {
  name: string;
  url: string;
  close(): Promise<void>;
}

const messages = [{ role: 'user', content: 'several choices' }];
/** The four ways to ask the contract's endpoints: the three POSTs and `EventSource`'s `GET /chat/sse?q=`. */
const ask = (url: string, endpoint: Endpoint, body: Record<string, unknown>, how: 'POST' | 'GET'): Promise<RawResponse> =>
  how === 'GET' ? rawRequest(`${url}${endpoint}?q=${encodeURIComponent(JSON.stringify(body))}`) : rawRequest(`${url}${endpoint}`, { body });
const WAYS: Array<[Endpoint, 'POST' | 'GET']> = [['/chat/json', 'POST'], ['/chat/stream', 'POST'], ['/chat/sse', 'POST'], ['/chat/sse', 'GET']];

describe('n > 1 on /chat/json, /chat/stream, /chat/sse', () => {
  let emulator: Emulator;
  let client: ChatClient;
  const refusing: Target[] = [];
  const allowing: Target[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'openai', seed: 8 });
    client = createChatClient({ baseUrl: emulator.url, model: 'gpt-4o-mini', retry: 0 });
    for (const [list, allowSeveralChoices] of [[refusing, false], [allowing, true]] as const) {
      const options = allowSeveralChoices ? { allowSeveralChoices } : {}; // the default refuses
      const express = await startExpressRouter({ client: { baseUrl: emulator.url, model: 'gpt-4o-mini', retry: 0 }, ...options });
      list.push({ name: 'express', ...express });
      const nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, ...options })] });
      list.push({ name: 'nest', ...nest });
      const hono = await startHonoChat({ client, ...options });
      list.push({ name: 'web (Hono)', ...hono });
    }
  });
  afterAll(async () => {
    for (const target of [...refusing, ...allowing]) await target.close();
    await client.close();
    await emulator.close();
  });

  it('is refused by default: 400 invalid_request in the endpoint\'s format, saying why; nothing goes upstream', async () => {
    const before = emulator.requests.length;
    for (const target of refusing) {
      for (const [endpoint, how] of WAYS) {
        const res = await ask(target.url, endpoint, { messages, n: 3 }, how);
        const error = expectErrorBeforeCommit(res, endpoint, 400, 'invalid_request');
        expect([target.name, how, endpoint, error.message]).toEqual([
          target.name,
          how,
          endpoint,
          'invalid request body: n: this endpoint answers one choice, got n = 3 (the upstream would generate 3 answers, all billed, and only the first would be sent); send n: 1 or leave it out',
        ]);
      }
    }
    expect(emulator.requests.length).toBe(before);
  });

  it('n: 1 and no n are served as before', async () => {
    for (const target of refusing) {
      expectJsonAnswer(await ask(target.url, '/chat/json', { messages, n: 1 }, 'POST'));
      expectNdjsonAnswer(await ask(target.url, '/chat/stream', { messages }, 'POST'));
      expectSseAnswer(await ask(target.url, '/chat/sse', { messages, n: 1 }, 'GET'));
    }
  });

  it('allowSeveralChoices: true forwards n, and each endpoint answers its one message', async () => {
    for (const target of allowing) {
      for (const [endpoint, how] of WAYS) {
        const user = `${target.name} ${how} ${endpoint}`;
        const res = await ask(target.url, endpoint, { messages, n: 2, user }, how);
        if (endpoint === '/chat/json') expectJsonAnswer(res);
        else if (endpoint === '/chat/stream') expectNdjsonAnswer(res);
        else expectSseAnswer(res);
        const received = await emulator.waitForRequest((r) => (r.body as { user?: unknown } | undefined)?.user === user);
        expect(received.body).toMatchObject({ n: 2 });
      }
    }
  });

  it("OpenAI's /v1/chat/completions refuses n > 1 even when the chat endpoints allow it", async () => {
    for (const target of allowing.filter((t) => t.name !== 'web (Hono)')) {
      const res = await rawRequest(`${target.url}/v1/chat/completions`, { body: { messages, n: 2 } });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringMatching(/^invalid request body: n: this endpoint answers one choice/) } });
    }
  });
});
