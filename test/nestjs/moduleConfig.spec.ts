/**
 * `ChatfluxModuleConfig` is the node endpoints' config (`ServingOptionsSchema`'s fields) with the module's own, and the
 * controller passes it through as it is: options the hand copy of old lacked (`models`, `onHeartbeat`) reach the
 * endpoints.
 */
import { ChatfluxModule } from '../../src/nestjs/index.js';
import type { ChatEndpoint } from '../../src/serve/ChatRequestLog.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { rawRequest } from '../helpers/rawRequest.js';
import { expectSseAnswer } from '../helpers/wireAssertions.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';

describe('ChatfluxModule.forRoot passes the serving options through to its controller', () => {
  let emulator: Emulator;
  let nest: NestTestApp;
  const heartbeats: ChatEndpoint[] = [];

  beforeAll(async () => {
    // 60 ms between events and a 10 ms heartbeat: a stream writes heartbeats between its chunks.
    emulator = await startEmulator({ dialect: 'deepseek', seed: 1, paceMs: 60 });
    const client = { provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'upstream-key', model: 'deepseek-chat', retry: false as const };
    nest = await startNestApp({
      imports: [ChatfluxModule.forRoot({ client, routes: true, models: ['a-route-name'], heartbeatMs: 10, onHeartbeat: (endpoint) => heartbeats.push(endpoint) })],
    });
  });
  afterAll(async () => {
    await nest.close();
    await emulator.close();
  });

  it('lists config.models on GET /v1/models', async () => {
    const res = await rawRequest(`${nest.url}/v1/models`);
    expect(res.status).toBe(200);
    const ids = (JSON.parse(res.body) as { data: Array<{ id: string }> }).data.map((model) => model.id);
    expect(ids).toContain('a-route-name');
  });

  it('calls config.onHeartbeat with the endpoint when a stream writes its heartbeat', async () => {
    const body = { messages: [{ role: 'user', content: 'Hello, how are you?' }] };
    expectSseAnswer(await rawRequest(`${nest.url}/chat/sse`, { body }));
    expect(heartbeats.length).toBeGreaterThan(0);
    expect(new Set(heartbeats)).toEqual(new Set(['/chat/sse']));
  });

  it('refuses a wrong serving option when the controller is created, naming it', async () => {
    const client = { provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'k' };
    await expect(startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, maxLogFieldChars: -1 })] })).rejects.toThrow(
      /maxLogFieldChars must be an integer ≥ 0, got -1; omit it for the default\./,
    );
  });
});
