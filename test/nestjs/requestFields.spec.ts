import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { expectForwardedIntact } from '../helpers/expectForwardedIntact.js';
import { rawRequest } from '../helpers/rawRequest.js';
import { expectErrorBeforeCommit } from '../helpers/wireAssertions.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';

describe('ChatfluxModule routes: every request field reaches the provider', () => {
  let emulator: Emulator;
  let nest: NestTestApp;
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 5 });
    const client = { baseUrl: emulator.url, model: 'deepseek-chat', retry: false as const };
    nest = await startNestApp({
      imports: [ChatfluxModule.forRoot({ client, routes: true, requestPolicy: { maxN: 2 }, allowSeveralChoices: true })],
    });
  });
  afterAll(async () => {
    await nest.close();
    await emulator.close();
  });

  it('seed, n, thinking, tools, a tool result, reasoning_content, images, prefix and unknown fields arrive intact, on every endpoint', async () => {
    await expectForwardedIntact(nest.url, emulator, 'nest');
  });

  it('applies its requestPolicy (n over the cap is a 400 naming n)', async () => {
    const res = await rawRequest(`${nest.url}/chat/stream`, {
      body: { messages: [{ role: 'user', content: 'x' }], n: 3 },
    });
    expect(expectErrorBeforeCommit(res, '/chat/stream', 400, 'invalid_request').message).toBe(
      'invalid request body: n: at most 2 on this server, got 3',
    );
  });
});
