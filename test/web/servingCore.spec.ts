/**
 * The web handlers serve by the same core as the node endpoints (`src/serve/createServingCore.ts`), so what the node
 * endpoints did and the web handlers did not now holds for both: a route's breakers are told which caller a request
 * comes from (one key's poisoned requests do not open them for the other keys), and a graceful shutdown
 * (`createGracefulShutdown`) refuses new requests with 503 `shutting_down` and ends the running streams in-band.
 */
import { createChatClient } from '../../src/client/createChatClient';
import { createChatRoute, type ChatRoute } from '../../src/client/createChatRoute';
import { createGracefulShutdown } from '../../src/node/createGracefulShutdown';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { startPoisonUpstream } from '../helpers/startPoisonUpstream';
import type { TestServer } from '../helpers/startServer';
import { expectErrorAfterCommit, expectErrorBeforeCommit } from '../helpers/wireAssertions';
import { startHonoChat, type HonoChat } from './startHonoChat';

const KEY_A = 'web-core-suite-key-a-0123456789ab';
const KEY_B = 'web-core-suite-key-b-0123456789ab';
const SHUTTING_DOWN = { message: 'the server is shutting down; retry the request', type: 'server_error', code: 'shutting_down' };

let web: HonoChat | undefined;
const upstreams: TestServer[] = [];
let route: ChatRoute | undefined;
afterEach(async () => {
  await web?.close();
  await route?.close();
  await Promise.all(upstreams.map((u) => u.close()));
  web = undefined;
  route = undefined;
  upstreams.length = 0;
});

const poisonUpstream = async (state: { down: boolean }): Promise<TestServer> => {
  const server = await startPoisonUpstream(state);
  upstreams.push(server);
  return server;
};

describe('createChatHandlers over the serving core', () => {
  it("passes the caller to a route: 5+ poisoned requests of key A leave the breakers closed for key B; an outage still opens them", async () => {
    const state = { down: false };
    const [p, f] = [await poisonUpstream(state), await poisonUpstream(state)];
    route = createChatRoute({
      name: 'chat',
      breaker: { consecutiveFailures: 5, coolDownMs: 60_000 },
      targets: [p, f].map((u, i) => ({ baseUrl: `${u.url}/v1`, apiKey: 'k', model: 'm', name: `t${i}`, retry: false as const })),
    });
    web = await startHonoChat({ client: route, apiKeys: [KEY_A, KEY_B], heartbeatMs: 0 });
    const ask = async (key: string, content: string): Promise<{ status: number; code?: string }> => {
      const res = await rawRequest(`${web!.url}/chat/json`, { body: { messages: [{ role: 'user', content }] }, headers: { authorization: `Bearer ${key}` } });
      return { status: res.status, code: (JSON.parse(res.body) as { error?: { code: string } }).error?.code };
    };
    for (let i = 0; i < 8; i++) expect((await ask(KEY_A, `poison ${i}`)).status).toBe(502);
    expect(await ask(KEY_B, 'hello')).toEqual({ status: 200, code: undefined });
    // A real outage: both keys fail, and the breakers open.
    state.down = true;
    for (let i = 0; i < 3; i++) await ask(KEY_A, `hello ${i}`);
    for (let i = 0; i < 2; i++) await ask(KEY_B, `hello ${i}`);
    expect(await ask(KEY_B, 'hello again')).toEqual({ status: 503, code: 'upstream_busy' });
  });

  it('takes a graceful shutdown: a request while it drains gets 503 shutting_down (Connection: close), a running stream its in-band frame', async () => {
    const emulator: Emulator = await startEmulator({ dialect: 'deepseek', seed: 6 });
    const client = createChatClient({ provider: 'openai-compatible', baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat' });
    const shutdown = createGracefulShutdown();
    try {
      web = await startHonoChat({ client, shutdown, heartbeatMs: 0 });
      let started = (): void => undefined;
      const first = new Promise<void>((resolve) => (started = resolve));
      const running = rawRequest(`${web.url}/chat/stream`, {
        body: { model: 'deepseek-chat#tokens=100000;pace=20', messages: [{ role: 'user', content: 'Tell me a long story.' }] },
        onPiece: () => started(),
      });
      await first;
      const draining = shutdown.drain(200);
      const refused = await rawRequest(`${web.url}/chat/json`, { body: { messages: [{ role: 'user', content: 'hi' }] } });
      expect(expectErrorBeforeCommit(refused, '/chat/json', 503, 'shutting_down')).toEqual(SHUTTING_DOWN);
      expect(refused.headers['connection']).toBe('close');
      await draining;
      expect(expectErrorAfterCommit(await running, '/chat/stream', 1).error).toEqual(SHUTTING_DOWN);
    } finally {
      await client.close();
      await emulator.close();
    }
  });
});
