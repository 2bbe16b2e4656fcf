/**
 * The serving core that Express's `chatRouter` and NestJS's `ChatfluxModule` call, on plain `node:http` (no framework
 * in between): the order of the checks, the request validated once, and a body some other parser read first.
 * The adapters' own specs (test/express, test/nestjs) run the full wire contract through it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { parseChatRequest } from '../../src/core/parseChatRequest';
import { ChatCompletionRequest, ChatRequest } from '../../src/core/schemas';
import { chatRouter } from '../../src/express/chatRouter';
import { createChatEndpoints, type ChatEndpointsConfig } from '../../src/node/createChatEndpoints';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { expectErrorBeforeCommit, expectEventSourceAnswer, expectJsonAnswer, expectSseAnswer } from '../helpers/wireAssertions';

const HELLO = { messages: [{ role: 'user', content: 'Hello, world!' }] };
const KEY = 'core-suite-key-0123456789';
const auth = { Authorization: `Bearer ${KEY}` };

let emulator: Emulator;
let client: ChatClient;
let server: Server | undefined;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 9 });
  client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
afterEach(async () => {
  jest.restoreAllMocks();
  server?.closeAllConnections();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
});

/**
 * The client's validations among the calls of `ChatCompletionRequest.safeParse`: the emulator, in this process too,
 * validates what it receives — the body the client sent, with `stream: true` added — which the client never has.
 */
const clientValidations = (spy: jest.SpyInstance): number => spy.mock.calls.filter(([value]) => (value as { stream?: unknown }).stream === undefined).length;

const listen = async (handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> => {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** The core alone on node:http: POST /chat/json, /chat/stream, /chat/sse and GET /chat/sse?q=. */
const serveCore = (config: Omit<ChatEndpointsConfig, 'client'> = {}): Promise<string> => {
  const endpoints = createChatEndpoints({ client, ...config });
  return listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const wire = url.pathname === '/chat/json' ? 'json' : url.pathname === '/chat/stream' ? 'ndjson' : 'sse';
    if (req.method === 'GET') void endpoints.query(req, res, url.searchParams.get('q') ?? undefined);
    else void endpoints.post(wire, req, res);
  });
};

describe('createChatEndpoints on plain node:http', () => {
  it('checks the key, then the media type, then the body, then the schema — each in the endpoint format', async () => {
    const url = await serveCore({ apiKeys: [KEY], bodyLimit: 1024 });
    // No key, wrong media type, malformed body: the key comes first.
    expectErrorBeforeCommit(await rawRequest(`${url}/chat/sse`, { body: '{', headers: { 'Content-Type': 'text/plain' } }), '/chat/sse', 401, 'unauthorized');
    expectErrorBeforeCommit(await rawRequest(`${url}/chat/stream`, { body: '{', headers: { ...auth, 'Content-Type': 'text/plain' } }), '/chat/stream', 415, 'unsupported_media_type');
    const tooBig = await rawRequest(`${url}/chat/json`, { body: { messages: [{ role: 'user', content: 'x'.repeat(2000) }] }, headers: auth });
    expect(expectErrorBeforeCommit(tooBig, '/chat/json', 413, 'payload_too_large').message).toBe('the request body is larger than the limit of 1024 bytes');
    expectErrorBeforeCommit(await rawRequest(`${url}/chat/json`, { body: '{"messages": [', headers: auth }), '/chat/json', 400, 'invalid_request');
    const invalid = await rawRequest(`${url}/chat/sse`, { body: { messages: [] }, headers: auth });
    expect(expectErrorBeforeCommit(invalid, '/chat/sse', 400, 'invalid_request').message).toMatch(/^invalid request body: messages: /);
    expectJsonAnswer(await rawRequest(`${url}/chat/json`, { body: HELLO, headers: auth }));
  });

  it('serves GET /chat/sse?q= as POST /chat/sse', async () => {
    const url = await serveCore();
    const viaQuery = expectEventSourceAnswer(await rawRequest(`${url}/chat/sse?q=${encodeURIComponent(JSON.stringify(HELLO))}`));
    expect(viaQuery).toEqual(expectSseAnswer(await rawRequest(`${url}/chat/sse`, { body: HELLO })));
  });

  it('validates a served request once: the downstream schema, never the client’s upstream schema again', async () => {
    const url = await serveCore();
    const downstream = jest.spyOn(ChatRequest, 'safeParse');
    const upstream = jest.spyOn(ChatCompletionRequest, 'safeParse');
    expectJsonAnswer(await rawRequest(`${url}/chat/json`, { body: HELLO }));
    expectSseAnswer(await rawRequest(`${url}/chat/sse`, { body: HELLO }));
    expect(downstream).toHaveBeenCalledTimes(2);
    expect(upstream).toHaveBeenCalled(); // the emulator's
    expect(clientValidations(upstream)).toBe(0);
  });

  it('the client still validates whatever a user passes it, parsed or not', async () => {
    const upstream = jest.spyOn(ChatCompletionRequest, 'safeParse');
    const parsed = parseChatRequest(HELLO);
    await expect(new Promise((resolve, reject) => client.json(parsed).subscribe({ next: resolve, error: reject }))).resolves.toBeDefined();
    expect(clientValidations(upstream)).toBe(1);
    // A parsed request changed into an invalid one afterwards is refused before anything is sent.
    const broken = { ...parseChatRequest(HELLO), temperature: 7 };
    await expect(new Promise((resolve, reject) => client.json(broken).subscribe({ next: resolve, error: reject }))).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('a body another parser read first', () => {
  it('Express: an app-level express.json() leaves the body to the router, which still holds it to its bodyLimit', async () => {
    const app = express();
    app.use(express.json({ limit: '10mb' }));
    app.use(chatRouter({ client, bodyLimit: 1024 }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expectJsonAnswer(await rawRequest(`${url}/chat/json`, { body: HELLO }));
    const tooBig = await rawRequest(`${url}/chat/json`, { body: { messages: [{ role: 'user', content: 'x'.repeat(2000) }] } });
    expect(expectErrorBeforeCommit(tooBig, '/chat/json', 413, 'payload_too_large').message).toBe('the request body is larger than the limit of 1024 bytes');
  });
});
