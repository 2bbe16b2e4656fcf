import { Body, Controller, Inject, Post } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import type { ChatClient } from '../../src/client/createChatClient.js';
import { CHATFLUX_CLIENT, ChatfluxModule, ChatNdjson, ChatSse, Demand, ZodValidationPipe } from '../../src/nestjs/index.js';
import type { DemandGate } from '../../src/core/createDemandGate.js';
import { ChatRequest } from '../../src/core/schemas/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { rawRequest } from '../helpers/rawRequest.js';
import { contentOf, expectErrorBeforeCommit, expectJsonAnswer, expectNdjsonAnswer, expectSseAnswer, type Endpoint } from '../helpers/wireAssertions.js';

const keepAlive = { Connection: 'keep-alive' };
const ask = (model = 'deepseek-chat'): unknown => ({ model, messages: [{ role: 'user', content: 'Hello from Fastify' }] });

@Controller('my')
class MyChatController {
  constructor(@Inject(CHATFLUX_CLIENT) private readonly client: ChatClient) {}

  @Post('stream')
  @ChatNdjson()
  stream(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.stream(request, { demand });
  }

  @Post('sse')
  @ChatSse()
  sse(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.sse(request, { demand });
  }
}

describe('ChatfluxModule on the Fastify platform (writers on reply.raw)', () => {
  let emulator: Emulator;
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 4 });
    const client = { provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat', retry: false as const };
    const moduleRef = await Test.createTestingModule({
      imports: [ChatfluxModule.forRoot({ client, routes: true })],
      controllers: [MyChatController],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await emulator.close();
  });

  it('serves the three module routes with the contract’s wire', async () => {
    const json = expectJsonAnswer(await rawRequest(`${url}/chat/json`, { body: ask(), headers: keepAlive }));
    const ndjson = expectNdjsonAnswer(await rawRequest(`${url}/chat/stream`, { body: ask(), headers: keepAlive }));
    const sse = expectSseAnswer(await rawRequest(`${url}/chat/sse`, { body: ask(), headers: keepAlive }));
    expect(contentOf(ndjson)).toBe(json.message.content);
    expect(sse).toEqual(ndjson);
  });

  it.each(['/chat/json', '/chat/stream', '/chat/sse'] as Endpoint[])('%s: an invalid body is a 400 in the endpoint format', async (endpoint) => {
    expectErrorBeforeCommit(await rawRequest(url + endpoint, { body: { messages: [] } }), endpoint, 400, 'invalid_request');
  });

  it('decorated handlers serve the same bytes as the module routes', async () => {
    for (const [mine, endpoint] of [['/my/stream', '/chat/stream'], ['/my/sse', '/chat/sse']] as const) {
      const a = await rawRequest(url + mine, { body: ask(), headers: keepAlive });
      const b = await rawRequest(url + endpoint, { body: ask(), headers: keepAlive });
      expect(a.status).toBe(200);
      expect(a.body).toBe(b.body);
      expect(a.headers['content-type']).toBe(b.headers['content-type']);
    }
  });

  it('a decorated handler’s validation error is a 400 in its format', async () => {
    expectErrorBeforeCommit(await rawRequest(`${url}/my/sse`, { body: { messages: 'hi' } }), '/chat/sse', 400, 'invalid_request');
  });

  it('a client that disconnects mid-stream aborts the upstream request', async () => {
    const before = emulator.requests.length;
    await rawRequest(`${url}/chat/sse`, {
      body: ask('deepseek-chat#tokens=100000;pace=5'),
      onPiece: (_text, soFar) => (soFar.includes('"index":1') ? 'abort' : undefined),
    });
    const upstream = await emulator.waitForRequest((request) => request.seq > before);
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
  });
});
