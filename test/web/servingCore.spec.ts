/**
 * The web handlers serve by the same core as the node endpoints (`src/serve/createServingCore.ts`), so what the node
 * endpoints did and the web handlers did not now holds for both: a graceful shutdown (`createGracefulShutdown`)
 * refuses new requests with 503 `shutting_down` (`Connection: close`) and ends the running streams in-band. (The
 * route caller, the other difference, is tested in `createChatHandlers.spec.ts`.)
 */
import { createChatClient } from '../../src/client/createChatClient';
import { createGracefulShutdown } from '../../src/node/createGracefulShutdown';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { expectErrorAfterCommit, expectErrorBeforeCommit } from '../helpers/wireAssertions';
import { startHonoChat, type HonoChat } from './startHonoChat';

const SHUTTING_DOWN = { message: 'the server is shutting down; retry the request', type: 'server_error', code: 'shutting_down' };

let web: HonoChat | undefined;
afterEach(async () => {
  await web?.close();
  web = undefined;
});

describe('createChatHandlers over the serving core', () => {
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
