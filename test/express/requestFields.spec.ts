import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { chatRouter, type ChatRouterConfig } from '../../src/express/chatRouter';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { expectForwardedIntact } from '../helpers/expectForwardedIntact';
import { rawRequest } from '../helpers/rawRequest';
import { expectErrorBeforeCommit, expectJsonAnswer } from '../helpers/wireAssertions';

describe('chatRouter: every request field reaches the provider', () => {
  let emulator: Emulator;
  let client: ChatClient;
  let server: Server | undefined;

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 5 });
  });
  afterAll(async () => emulator.close());
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    server = undefined;
    await client.close();
  });

  const serve = async (config: Partial<ChatRouterConfig> = {}): Promise<string> => {
    client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 });
    const app = express();
    app.use(chatRouter({ client, ...config }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('seed, n, thinking, tools, a tool result, reasoning_content, images, prefix and unknown fields arrive intact, on every endpoint', async () => {
    await expectForwardedIntact(await serve({ allowSeveralChoices: true }), emulator, 'router'); // n: 2 among them
  });

  it('GET /chat/sse?q= forwards every field too', async () => {
    const url = await serve({ allowSeveralChoices: true }); // n: 2 among them
    const body = {
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'q' }],
      seed: 9,
      n: 2,
      user: 'via-query',
      thinking: { type: 'disabled' },
      x_extra: true,
    };
    const res = await rawRequest(`${url}/chat/sse?q=${encodeURIComponent(JSON.stringify(body))}`);
    expect(res.status).toBe(200);
    const received = await emulator.waitForRequest((r) => (r.body as { user?: unknown }).user === 'via-query');
    expect(received.body).toEqual({ ...body, stream: true, stream_options: { include_usage: true } });
  });

  it('a known field of the wrong type is a 400 naming it, before anything goes upstream', async () => {
    const url = await serve();
    const before = emulator.requests.length;
    const res = await rawRequest(`${url}/chat/json`, {
      body: { messages: [{ role: 'user', content: 'x' }], seed: 'random' },
    });
    expect(expectErrorBeforeCommit(res, '/chat/json', 400, 'invalid_request').message).toMatch(
      /^invalid request body: seed: /,
    );
    expect(emulator.requests.length).toBe(before);
  });

  it('requestPolicy: allowed models, caps on max_tokens and n, fields stripped', async () => {
    const url = await serve({
      requestPolicy: { allowedModels: ['deepseek-chat'], maxTokens: 64, maxN: 1, stripFields: ['user', 'logprobs'] },
    });
    const ask = (extra: Record<string, unknown>) =>
      rawRequest(`${url}/chat/json`, { body: { messages: [{ role: 'user', content: 'policy' }], ...extra } });
    const model = expectErrorBeforeCommit(
      await ask({ model: 'deepseek-reasoner' }),
      '/chat/json',
      400,
      'invalid_request',
    );
    expect(model.message).toBe(
      'invalid request body: model: "deepseek-reasoner" is not allowed on this server (allowed: deepseek-chat)',
    );
    expect(
      expectErrorBeforeCommit(await ask({ max_tokens: 65 }), '/chat/json', 400, 'invalid_request').message,
    ).toMatch(/max_tokens: at most 64/);
    expect(expectErrorBeforeCommit(await ask({ n: 2 }), '/chat/json', 400, 'invalid_request').message).toMatch(
      /n: at most 1/,
    );
    expectJsonAnswer(await ask({ seed: 77, user: 'someone', logprobs: true, n: 1 }));
    const received = await emulator.waitForRequest((r) => (r.body as { seed?: unknown }).seed === 77);
    expect(received.body).toEqual({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'policy' }],
      seed: 77,
      n: 1,
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('a wrong requestPolicy fails when the router is created, saying how to fix it', () => {
    client = createChatClient({ baseUrl: emulator.url });
    expect(() => chatRouter({ client, requestPolicy: { maxN: 0 } })).toThrow(
      /requestPolicy\.maxN must be a positive integer/,
    );
  });
});
