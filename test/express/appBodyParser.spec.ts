/**
 * The router after a global `app.use(express.json())` — the usual Express setup — over real HTTP: it serves the body
 * that parser read, and with `errorHandler` mounted beside it, that parser's refusals are answered in the endpoint's
 * format (key first), not with Express's HTML page.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient.js';
import { chatRouter } from '../../src/express/chatRouter.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { rawRequest } from '../helpers/rawRequest.js';
import { expectErrorBeforeCommit, expectJsonAnswer, expectSseAnswer, type Endpoint } from '../helpers/wireAssertions.js';

const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
const KEY = 'app-parser-key';
const auth = { Authorization: `Bearer ${KEY}` };
const HELLO = { messages: [{ role: 'user', content: 'hi' }] };

let emulator: Emulator;
let client: ChatClient;
let server: Server;
let url: string;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 8 });
  client = createChatClient({ provider: 'openai-compatible', baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat', retry: false });
  const app = express();
  app.use(express.json()); // the app's parser, 100 kb
  const chat = chatRouter({ client, apiKeys: [KEY] });
  app.use('/api', chat, chat.errorHandler);
  app.post('/other', (_req, res) => void res.json({ ok: true }));
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await client.close();
  await emulator.close();
});

describe('chatRouter after app.use(express.json())', () => {
  it('serves the body the app’s parser read', async () => {
    expectJsonAnswer(await rawRequest(`${url}/api/chat/json`, { body: HELLO, headers: auth }));
    expectSseAnswer(await rawRequest(`${url}/api/chat/sse`, { body: HELLO, headers: auth }));
  });

  it.each(ENDPOINTS)('%s: malformed JSON is the router’s 400 in the endpoint format, not Express’s HTML', async (endpoint) => {
    const res = await rawRequest(`${url}/api${endpoint}`, { body: '{"messages": [', headers: auth });
    expect(expectErrorBeforeCommit(res, endpoint, 400, 'invalid_request').message).toBe('the request body is not valid JSON');
    expect(res.body).not.toMatch(/<html|at /i);
  });

  it.each(ENDPOINTS)('%s: without a key, malformed JSON is a 401 (the key is checked first)', async (endpoint) => {
    const res = await rawRequest(`${url}/api${endpoint}`, { body: '{"messages": [' });
    expectErrorBeforeCommit(res, endpoint, 401, 'unauthorized');
  });

  it('a body over the app parser’s 100 kb is a 413 naming the limit it broke', async () => {
    const res = await rawRequest(`${url}/api/chat/stream`, { body: { messages: [{ role: 'user', content: 'x'.repeat(200_000) }] }, headers: auth });
    expect(expectErrorBeforeCommit(res, '/chat/stream', 413, 'payload_too_large').message).toBe('the request body is larger than the limit of 102400 bytes');
  });

  it('a gzip body that is not gzip is the router’s 400', async () => {
    const res = await rawRequest(`${url}/api/chat/sse`, { body: JSON.stringify(HELLO), headers: { ...auth, 'Content-Encoding': 'gzip' } });
    expectErrorBeforeCommit(res, '/chat/sse', 400, 'invalid_request');
  });

  it('other routes keep Express’s own answer to a body error', async () => {
    const res = await rawRequest(`${url}/other`, { body: '{"messages": [' });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
