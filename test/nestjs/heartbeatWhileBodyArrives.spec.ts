/**
 * `@ChatSse()` on an app created with `bodyParser: false` (as the README advises): the handler's interceptor reads the
 * body itself, and a heartbeat written while that body still arrives committed a 200 — its refusal (malformed JSON,
 * the pipe's 400) then went in-band under it. No heartbeat before the body is read; the queue phase keeps its own.
 */
import { Body, Controller, Inject, Post } from '@nestjs/common';
import type { ChatClient } from '../../src/client/createChatClient.js';
import { ChatRequest } from '../../src/core/schemas/index.js';
import { CHATFLUX_CLIENT, ChatfluxModule, ChatSse, Demand, ZodValidationPipe } from '../../src/nestjs/index.js';
import type { DemandGate } from '../../src/core/createDemandGate.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import type { RawResponse } from '../helpers/rawRequest.js';
import { slowPost as post } from '../helpers/slowPost.js';
import { expectErrorBeforeCommit } from '../helpers/wireAssertions.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';

const GAP_MS = 200; // five heartbeats of silence between two pieces of the body

@Controller('my')
class SlowBodyController {
  constructor(@Inject(CHATFLUX_CLIENT) private readonly client: ChatClient) {}

  @Post('sse')
  @ChatSse({ heartbeatMs: 40 })
  sse(@Body(new ZodValidationPipe(ChatRequest)) chat: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.stream(chat, { demand });
  }
}

const slowPost = (url: string, pieces: readonly string[]): Promise<RawResponse> => post(url, pieces, { gapMs: GAP_MS });

let emulator: Emulator;
let nest: NestTestApp;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 5 });
  const client = { baseUrl: emulator.url, model: 'deepseek-chat', retry: false as const };
  nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client })], controllers: [SlowBodyController] }, { bodyParser: false });
});
afterAll(async () => {
  await nest.close();
  await emulator.close();
});

describe('@ChatSse() with bodyParser: false and a slow body', () => {
  it('answers malformed JSON with 400, not a 200 of heartbeats and an in-band error', async () => {
    const res = await slowPost(`${nest.url}/my/sse`, ['{"messages":', '[']);
    expect(res.body).not.toContain(': ping');
    expectErrorBeforeCommit(res, '/chat/sse', 400, 'invalid_request');
  });

  it('answers the pipe’s refusal with 400', async () => {
    const res = await slowPost(`${nest.url}/my/sse`, ['{"messages":', '"hi"}']);
    expect(res.body).not.toContain(': ping');
    expectErrorBeforeCommit(res, '/chat/sse', 400, 'invalid_request');
  });

  it('still writes heartbeats while the upstream queues, once the body was read', async () => {
    const res = await slowPost(`${nest.url}/my/sse`, [JSON.stringify({ model: 'deepseek-chat#queue=300', messages: [{ role: 'user', content: 'hi' }] })]);
    expect(res.status).toBe(200);
    expect(res.body.startsWith(': ping\n\n')).toBe(true);
    expect(res.body.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});
