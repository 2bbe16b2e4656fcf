import { Body, Controller, Inject, Post } from '@nestjs/common';
import type { ChatClient } from '../../src/client/createChatClient.js';
import { CHATFLUX_CLIENT, ChatfluxModule, ChatJson, ChatSse, Demand, ZodValidationPipe } from '../../src/nestjs/index.js';
import type { DemandGate } from '../../src/core/createDemandGate.js';
import { ChatRequest } from '../../src/core/schemas/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { rawRequest } from '../helpers/rawRequest.js';
import { expectErrorBeforeCommit, expectJsonAnswer, expectSseAnswer, type Endpoint } from '../helpers/wireAssertions.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';

const KEY = 'body-parser-suite-key';
const auth = { Authorization: `Bearer ${KEY}` };
const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
/** A valid request of about 200 KB: over Nest's default 100 kb, under the module's 1 MB. */
const big = { messages: [{ role: 'user', content: 'x'.repeat(200_000) }] };

@Controller('my')
class MyChatController {
  constructor(@Inject(CHATFLUX_CLIENT) private readonly client: ChatClient) {}

  @Post('json')
  @ChatJson()
  json(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest) {
    return this.client.json(request);
  }

  @Post('sse')
  @ChatSse({ bodyLimit: 4096 })
  sse(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.sse(request, { demand });
  }

  /** Not a chatflux route: its body errors stay Nest's. */
  @Post('plain')
  plain(@Body() body: unknown): unknown {
    return body;
  }
}

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 5 });
});
afterAll(async () => emulator.close());

const start = (bodyParser: boolean): Promise<NestTestApp> =>
  startNestApp(
    {
      imports: [
        ChatfluxModule.forRoot({
          client: { provider: 'openai-compatible', baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat', retry: false },
          routes: true,
          apiKeys: [KEY],
        }),
      ],
      controllers: [MyChatController],
    },
    { bodyParser },
  );

describe('Nest’s default body parser in front of the module’s routes (NestFactory.create(App))', () => {
  let nest: NestTestApp;
  beforeAll(async () => {
    nest = await start(true);
  });
  afterAll(async () => nest.close());

  it.each(ENDPOINTS)('%s: malformed JSON is the router’s 400 in the endpoint format, not Nest’s', async (endpoint) => {
    const res = await rawRequest(nest.url + endpoint, { body: '{"messages": [', headers: auth });
    expect(expectErrorBeforeCommit(res, endpoint, 400, 'invalid_request').message).toBe('the request body is not valid JSON');
  });

  it.each(ENDPOINTS)('%s: without a key, malformed JSON is a 401 (the key is checked first)', async (endpoint) => {
    const res = await rawRequest(nest.url + endpoint, { body: '{"messages": [' });
    expectErrorBeforeCommit(res, endpoint, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it.each(ENDPOINTS)('%s: a body over Nest’s 100 kb is a 413 in the endpoint format, naming the limit it broke', async (endpoint) => {
    const res = await rawRequest(nest.url + endpoint, { body: big, headers: auth });
    expect(expectErrorBeforeCommit(res, endpoint, 413, 'payload_too_large').message).toBe(
      'the request body is larger than the limit of 102400 bytes',
    );
  });

  it('a body in an unsupported charset is the router’s 415', async () => {
    const res = await rawRequest(`${nest.url}/chat/sse`, { body: '{"messages":[]}', headers: { ...auth, 'Content-Type': 'application/json; charset=latin1' } });
    expectErrorBeforeCommit(res, '/chat/sse', 415, 'unsupported_media_type');
  });

  it('a decorated handler answers malformed JSON in its own format', async () => {
    const res = await rawRequest(`${nest.url}/my/sse`, { body: '{"messages": [' });
    expectErrorBeforeCommit(res, '/chat/sse', 400, 'invalid_request');
  });

  it('other routes keep Nest’s own answer to a body error', async () => {
    const res = await rawRequest(`${nest.url}/my/plain`, { body: '{"messages": [' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  it('valid bodies are still served', async () => {
    expectJsonAnswer(await rawRequest(`${nest.url}/chat/json`, { body: { messages: [{ role: 'user', content: 'hi' }] }, headers: auth }));
    expectJsonAnswer(await rawRequest(`${nest.url}/my/json`, { body: { messages: [{ role: 'user', content: 'hi' }] } }));
  });
});

describe('bodyParser: false (as examples/nestjs does): the module and the decorators parse the bodies', () => {
  let nest: NestTestApp;
  beforeAll(async () => {
    nest = await start(false);
  });
  afterAll(async () => nest.close());

  it('the module’s own 1 MB limit applies: a 200 KB request is served', async () => {
    expectJsonAnswer(await rawRequest(`${nest.url}/chat/json`, { body: big, headers: auth }));
  });

  it('a decorated handler parses the body itself (after the guards, before the pipes) and answers', async () => {
    expectJsonAnswer(await rawRequest(`${nest.url}/my/json`, { body: big }));
    expectSseAnswer(await rawRequest(`${nest.url}/my/sse`, { body: { messages: [{ role: 'user', content: 'hi' }] } }));
  });

  it('a decorated handler refuses malformed JSON and a body over its bodyLimit in its format', async () => {
    const malformed = await rawRequest(`${nest.url}/my/sse`, { body: '{"messages": [' });
    expect(expectErrorBeforeCommit(malformed, '/chat/sse', 400, 'invalid_request').message).toBe('the request body is not valid JSON');
    const tooBig = await rawRequest(`${nest.url}/my/sse`, { body: { messages: [{ role: 'user', content: 'x'.repeat(5000) }] } });
    expect(expectErrorBeforeCommit(tooBig, '/chat/sse', 413, 'payload_too_large').message).toBe(
      'the request body is larger than the limit of 4096 bytes',
    );
  });
});

describe('Nest’s default body parser and a module bodyLimit below its 100 kb', () => {
  let nest: NestTestApp;
  beforeAll(async () => {
    nest = await startNestApp({
      imports: [
        ChatfluxModule.forRoot({
          client: { provider: 'openai-compatible', baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat', retry: false },
          routes: true,
          bodyLimit: 2048,
        }),
      ],
    });
  });
  afterAll(async () => nest.close());

  it.each(ENDPOINTS)('%s: a body Nest’s parser took but over the module’s limit is still a 413 naming that limit', async (endpoint) => {
    const res = await rawRequest(nest.url + endpoint, { body: { messages: [{ role: 'user', content: 'x'.repeat(5000) }] } });
    expect(expectErrorBeforeCommit(res, endpoint, 413, 'payload_too_large').message).toBe('the request body is larger than the limit of 2048 bytes');
  });
});
