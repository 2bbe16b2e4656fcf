/**
 * A POST /chat/sse whose body arrives slower than the heartbeat: the request is not read (nor checked) yet, so no
 * `: ping` may commit the 200 before it is — else a malformed body, a schema error or the body timeout is written
 * in-band under a 200 instead of with its real status (400, 408), as the spec's error responses want. The heartbeat
 * of the provider's queue phase (after the request was accepted) still runs.
 */
import { createChatEndpoints } from '../../src/node/createChatEndpoints';
import { startServer, type TestServer } from '../helpers/startServer';
import { useEmulatedClient } from '../helpers/useEmulatedClient';
import { startHonoChat, type HonoChat } from '../web/startHonoChat';
import { expectErrorBeforeCommit } from '../helpers/wireAssertions';
import type { RawResponse } from '../helpers/rawRequest';
import { slowPost as post } from '../helpers/slowPost';

const upstream = useEmulatedClient();
const HEARTBEAT_MS = 40;
const GAP_MS = 200; // five heartbeats of silence between two pieces of the body

const slowPost = (url: string, pieces: readonly string[], end = true): Promise<RawResponse> =>
  post(url, pieces, { gapMs: GAP_MS, end });

let server: TestServer | HonoChat | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const config = () => ({ client: upstream.client, heartbeatMs: HEARTBEAT_MS, bodyTimeoutMs: 5 * GAP_MS });

const adapters: Array<[string, () => Promise<string>]> = [
  [
    'createChatEndpoints (node:http)',
    async () => {
      const endpoints = createChatEndpoints(config());
      server = await startServer((req, res) => void endpoints.post('sse', req, res));
      return server.url;
    },
  ],
  [
    'createChatHandlers (web)',
    async () => {
      server = await startHonoChat(config());
      return server.url;
    },
  ],
];

describe.each(adapters)('POST /chat/sse with a slow body, %s', (_name, start) => {
  it('answers an invalid body with 400, not a 200 of heartbeats and an in-band error', async () => {
    const url = await start();
    const res = await slowPost(`${url}/chat/sse`, ['{"messages":[]', '}']); // complete after 3 gaps
    expect(res.body).not.toContain(': ping');
    expect(expectErrorBeforeCommit(res, '/chat/sse', 400, 'invalid_request').message).toMatch(/^invalid request body: messages: /);
  });

  it('answers a body that does not arrive in time with 408, not a 200', async () => {
    const url = await start();
    const res = await slowPost(`${url}/chat/sse`, ['{"messages":', '[{"role":"user"'], false);
    expect(res.body).not.toContain(': ping');
    expectErrorBeforeCommit(res, '/chat/sse', 408, 'request_timeout');
  });

  it('still writes heartbeats once the request was read (a slow first token)', async () => {
    const url = await start();
    const res = await slowPost(`${url}/chat/sse`, [JSON.stringify({ model: 'deepseek-chat#queue=300', messages: [{ role: 'user', content: 'hi' }] })]);
    expect(res.status).toBe(200);
    expect(res.body.startsWith(': ping\n\n')).toBe(true);
    expect(res.body.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});
