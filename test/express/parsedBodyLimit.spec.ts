/**
 * The router after an app-level `express.json()` (with a larger limit of its own): the router's `bodyLimit` holds on
 * the body that parser read even when no `Content-Length` says how big it is — a chunked body, or a gzip body whose
 * `Content-Length` is its compressed size — by measuring the parsed body's JSON.
 */
import { gzipSync } from 'node:zlib';
import express from 'express';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { chatRouter } from '../../src/express/chatRouter';
import { jsonLengthExceeds } from '../../src/node/jsonLengthExceeds';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { startServer, type TestServer } from '../helpers/startServer';

let emulator: Emulator;
let client: ChatClient;
let server: TestServer;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 6 });
  client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 });
  const app = express();
  app.use(express.json({ limit: '10mb' }));
  const chat = chatRouter({ client, bodyLimit: 2000, heartbeatMs: 0 });
  app.use(chat, chat.errorHandler);
  server = await startServer(app);
});
afterAll(async () => {
  await server.close();
  await client.close();
  await emulator.close();
});

const body = (chars: number): string => JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(chars) }] });

describe('chatRouter after an app-level express.json(): its own bodyLimit on the parsed body', () => {
  it('refuses a gzip body whose inflated JSON is over the limit (its Content-Length is the compressed size) with 413', async () => {
    const zipped = gzipSync(body(50_000));
    expect(zipped.length).toBeLessThan(2000);
    const res = await rawRequest(`${server.url}/chat/json`, { body: zipped, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'payload_too_large' } });
  });

  it('refuses a chunked body (no Content-Length) over the limit with 413', async () => {
    const res = await rawRequest(`${server.url}/chat/stream`, { body: body(5000), headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } });
    expect(res.status).toBe(413);
    expect(res.body).toContain('"code":"payload_too_large"');
  });

  it('still serves a body within the limit, compressed or not', async () => {
    const zipped = await rawRequest(`${server.url}/chat/json`, { body: gzipSync(body(500)), headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } });
    expect(zipped.status).toBe(200);
    const plain = await rawRequest(`${server.url}/chat/json`, { body: body(500) });
    expect(plain.status).toBe(200);
  });
});

describe('jsonLengthExceeds', () => {
  it('agrees with JSON.stringify on values without escapes, around the limit', () => {
    const values: unknown[] = [{ a: [1, 2, { b: 'cc', d: null, e: true }], f: 'ü€' }, [], {}, 'x', 12.5, [[[]]]];
    for (const value of values) {
      const length = Buffer.byteLength(JSON.stringify(value));
      expect(jsonLengthExceeds(value, length)).toBe(false);
      expect(jsonLengthExceeds(value, length - 1)).toBe(true);
    }
  });
});
