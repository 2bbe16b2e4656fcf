/**
 * `maxConcurrentPerClient` with resumable answers: a client that went away does not free the place of the upstream
 * request still running for it (the answer's producer holds it until it stops), and the client can always resume its
 * own running answer — its reader takes no place of its own. Found by review: three dropped requests of a client
 * limited to one ran three upstream requests at once.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { chatRouter } from '../../src/express/chatRouter';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';

const KEY = 'key-1234567890abcdef';
const auth = { Authorization: `Bearer ${KEY}` };
// A paced answer: 200 tokens, 20 ms apart — still running when the next requests come.
const ask = { model: 'deepseek-chat#tokens=200;pace=20', messages: [{ role: 'user', content: 'hi' }] };

describe('maxConcurrentPerClient with resumable answers (chatRouter)', () => {
  let emulator: Emulator;
  let client: ChatClient;
  let server: ReturnType<express.Express['listen']>;
  let base: string;
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 1 });
    client = createChatClient({ baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat' });
    const app = express();
    app.use(chatRouter({ client, apiKeys: [KEY], maxConcurrentPerClient: 1, resumable: { abandonAfterMs: 60_000 } }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await client.close();
    await emulator.close();
  });

  it('a dropped answer keeps its place while its upstream runs; its owner resumes it; the place is free once it ends', async () => {
    const first = await rawRequest(`${base}/chat/stream`, { headers: auth, body: ask, onPiece: () => 'abort' });
    expect(first.status).toBe(200);
    const id = first.headers['chatflux-stream-id'] as string;
    expect(id).toMatch(/^[\w-]{16,}$/);

    // The first answer's upstream still runs: a second request of the same client is refused, and nothing more goes upstream.
    const second = await rawRequest(`${base}/chat/stream`, { headers: auth, body: ask });
    expect(second.status).toBe(429);
    expect(JSON.parse(second.body.trim())).toMatchObject({ error: { code: 'concurrency_limit' } });
    expect(second.headers['chatflux-stream-id']).toBeUndefined(); // refused: no stream was started, none is named
    expect(emulator.requests.length).toBe(1);

    // Its owner resumes it, at its limit: the whole answer, to its end.
    const resumed = await rawRequest(`${base}/chat/streams/${id}?after=-1`, { headers: auth });
    expect(resumed.status).toBe(200);
    const lines = resumed.body.trim().split('\n').map((line) => JSON.parse(line) as { done?: boolean; index?: number });
    expect(lines.at(-1)).toMatchObject({ done: true });
    expect(emulator.requests.length).toBe(1);

    // The answer has ended: its place is free again.
    const third = await rawRequest(`${base}/chat/stream`, { headers: auth, body: ask });
    expect(third.status).toBe(200);
    expect(emulator.requests.length).toBe(2);
  }, 30_000);
});
