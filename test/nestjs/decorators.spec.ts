import { Body, Controller, Inject, Injectable, Module, Post, UnauthorizedException, UseGuards, type CanActivate } from '@nestjs/common';
import { filter, map } from 'rxjs';
import type { ChatClient } from '../../src/client/createChatClient.js';
import { isConfigError } from '../../src/core/errors.js';
import {
  CHATFLUX_CLIENT,
  ChatfluxModule,
  ChatJson,
  ChatNdjson,
  ChatSse,
  Demand,
  ZodValidationPipe,
} from '../../src/nestjs/index.js';
import type { DemandGate } from '../../src/core/createDemandGate.js';
import { ChatRequest } from '../../src/core/schemas/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { rawRequest } from '../helpers/rawRequest.js';
import {
  contentOf,
  expectErrorBeforeCommit,
  expectJsonAnswer,
  expectNdjsonAnswer,
  expectSseAnswer,
  ndjsonLines,
  sseFrames,
  type Endpoint,
} from '../helpers/wireAssertions.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';

const UPSTREAM_URL = 'UPSTREAM_URL';
const keepAlive = { Connection: 'keep-alive' };
const ask = (model = 'deepseek-chat'): unknown => ({ model, messages: [{ role: 'user', content: 'Tell me a story.' }] });
const shouted = (content: string): boolean => content.trim() !== '';

@Injectable()
class DenyAll implements CanActivate {
  canActivate(): boolean {
    throw new UnauthorizedException('no entry');
  }
}

@Controller('my')
class MyChatController {
  constructor(@Inject(CHATFLUX_CLIENT) private readonly client: ChatClient) {}

  @Post('json')
  @ChatJson()
  json(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.json(request, { demand });
  }

  @Post('stream')
  @ChatNdjson()
  stream(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.stream(request, { demand });
  }

  @Post('sse')
  @ChatSse({ heartbeatMs: 50 })
  sse(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.sse(request, { demand });
  }

  /** A pipeline of the user's own: drop blank chunks, shout the rest. */
  @Post('shout')
  @ChatNdjson()
  shout(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.stream(request, { demand }).pipe(
      filter((chunk) => shouted(chunk.message.content)),
      map((chunk) => ({ text: chunk.message.content.toUpperCase() })),
    );
  }

  /** The same pipeline as SSE: plain values become `data:` frames, then `[DONE]`. */
  @Post('shout-sse')
  @ChatSse()
  shoutSse(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.stream(request, { demand }).pipe(
      filter((chunk) => shouted(chunk.message.content)),
      map((chunk) => ({ text: chunk.message.content.toUpperCase() })),
    );
  }

  @Post('guarded')
  @UseGuards(DenyAll)
  @ChatSse()
  guarded(): never {
    throw new Error('unreachable');
  }

  @Post('boom')
  @ChatJson()
  boom(): never {
    throw new Error('secret internals sk-abcdefghijklmnopqrstuvwxyz');
  }
}

@Module({ providers: [{ provide: UPSTREAM_URL, useFactory: () => emulator.url }], exports: [UPSTREAM_URL] })
class UpstreamModule {}

let emulator: Emulator;
let nest: NestTestApp;

beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 3 });
  nest = await startNestApp({
    imports: [
      ChatfluxModule.forRootAsync({
        imports: [UpstreamModule],
        inject: [UPSTREAM_URL],
        useFactory: async (baseUrl: string) => ({
          client: { provider: 'openai-compatible' as const, baseUrl, apiKey: 'upstream-key', model: 'deepseek-chat', retry: false as const },
        }),
        routes: { prefix: 'api' },
      }),
    ],
    controllers: [MyChatController],
  });
});
afterAll(async () => {
  await nest.close();
  await emulator.close();
});

const FORMAT: Record<string, Endpoint> = { '/my/json': '/chat/json', '/my/stream': '/chat/stream', '/my/sse': '/chat/sse' };

describe('@ChatJson(), @ChatNdjson(), @ChatSse() on a user controller', () => {
  it.each(Object.entries(FORMAT))('%s serves the bytes of the module route %s', async (path, endpoint) => {
    const mine = await rawRequest(nest.url + path, { body: ask(), headers: keepAlive });
    const module = await rawRequest(`${nest.url}/api${endpoint}`, { body: ask(), headers: keepAlive });
    if (endpoint === '/chat/json') expectJsonAnswer(mine);
    else if (endpoint === '/chat/stream') expectNdjsonAnswer(mine);
    else expectSseAnswer(mine);
    const { date: _a, ...mineHeaders } = mine.headers;
    const { date: _b, ...moduleHeaders } = module.headers;
    // Heartbeat comments depend on timing (this route's heartbeat is 50 ms: a busy machine gets one in before the first
    // chunk); every other byte must be the module route's.
    const bytes = (body: string): string => body.replace(/^: ping\n\n/gm, '');
    expect({ status: mine.status, headers: mineHeaders, body: bytes(mine.body) }).toEqual({ status: module.status, headers: moduleHeaders, body: bytes(module.body) });
  });

  it.each(Object.entries(FORMAT))('%s: a zod validation error is a 400 in the %s format', async (path, endpoint) => {
    const res = await rawRequest(nest.url + path, { body: { messages: [{ role: 'robot', content: 'hi' }] } });
    const error = expectErrorBeforeCommit(res, endpoint, 400, 'invalid_request');
    expect(error.message).toMatch(/^invalid request body: messages\.0\.role: /);
    const fromModule = await rawRequest(`${nest.url}/api${endpoint}`, { body: { messages: [{ role: 'robot', content: 'hi' }] } });
    expect(res.body).toBe(fromModule.body);
  });

  it.each(Object.entries(FORMAT))('%s: an upstream refusal keeps its status (429) in the %s format', async (path, endpoint) => {
    const res = await rawRequest(nest.url + path, { body: ask('deepseek-chat#status=429') });
    expectErrorBeforeCommit(res, endpoint, 429);
  });

  it('a custom Flux (filter + map) is served as NDJSON, one value per line', async () => {
    const reference = expectNdjsonAnswer(await rawRequest(`${nest.url}/my/stream`, { body: ask(), headers: keepAlive }));
    const expected = reference.filter((chunk) => shouted(chunk.message.content)).map((chunk) => ({ text: chunk.message.content.toUpperCase() }));
    expect(expected.length).toBeGreaterThan(1);
    const res = await rawRequest(`${nest.url}/my/shout`, { body: ask(), headers: keepAlive });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(ndjsonLines(res.body)).toEqual(expected);
  });

  it('a custom Flux is served as SSE data frames ended by [DONE]', async () => {
    const reference = expectNdjsonAnswer(await rawRequest(`${nest.url}/my/stream`, { body: ask(), headers: keepAlive }));
    const expected = reference.filter((chunk) => shouted(chunk.message.content)).map((chunk) => ({ text: chunk.message.content.toUpperCase() }));
    const res = await rawRequest(`${nest.url}/my/shout-sse`, { body: ask(), headers: keepAlive });
    expect(res.headers['content-type']).toBe('text/event-stream');
    const frames = sseFrames(res.body).filter((frame) => frame.comment === undefined);
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
    expect(frames.slice(0, -1).map((frame) => JSON.parse(frame.data ?? '') as unknown)).toEqual(expected);
  });

  it('a guard’s UnauthorizedException is a 401 in the SSE error format', async () => {
    const res = await rawRequest(`${nest.url}/my/guarded`, { body: ask() });
    expect(expectErrorBeforeCommit(res, '/chat/sse', 401, 'unauthorized').message).toBe('no entry');
  });

  it('a handler’s own exception is a 500 that discloses nothing', async () => {
    const res = await rawRequest(`${nest.url}/my/boom`, { body: ask() });
    const error = expectErrorBeforeCommit(res, '/chat/json', 500);
    expect(error.message).toBe('internal server error');
    expect(res.body).not.toContain('sk-');
  });

  it('a client that disconnects from a decorated SSE handler aborts the upstream request', async () => {
    const before = emulator.requests.length;
    const res = await rawRequest(`${nest.url}/my/sse`, {
      body: ask('deepseek-chat#tokens=100000;pace=5'),
      onPiece: (_text, soFar) => (soFar.includes('"index":1') ? 'abort' : undefined),
    });
    expect(res.body).not.toContain('[DONE]');
    const upstream = await emulator.waitForRequest((request) => request.seq > before);
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
  });
});

describe('ChatfluxModule.forRootAsync', () => {
  it('builds the client from the factory’s injected config and serves the routes under the prefix', async () => {
    const client = nest.app.get<ChatClient>(CHATFLUX_CLIENT);
    expect(client.baseUrl).toBe(emulator.url);
    const chunks = expectSseAnswer(await rawRequest(`${nest.url}/api/chat/sse`, { body: ask(), headers: keepAlive }));
    expect(contentOf(chunks).length).toBeGreaterThan(0);
    expect((await rawRequest(`${nest.url}/chat/sse`, { body: ask() })).status).toBe(404);
    // OpenAI's under the prefix's own `v1` (a prefix that ends in `v1` holds them itself: the README's snippet)
    expect((await rawRequest(`${nest.url}/api/v1/models`)).status).toBe(200);
    expect((await rawRequest(`${nest.url}/api/models`)).status).toBe(404);
  });

  it('closes the client it created when the application closes', async () => {
    const app = await startNestApp({
      imports: [
        ChatfluxModule.forRootAsync({
          useFactory: () => ({ client: { provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'k' } }),
        }),
      ],
    });
    const client = app.app.get<ChatClient>(CHATFLUX_CLIENT);
    await app.close();
    const error = await new Promise<unknown>((resolve) => client.json(ask() as ChatRequest).subscribe({ error: resolve, complete: () => resolve(undefined) }));
    expect(isConfigError(error)).toBe(true);
  });
});
