/**
 * `onHeartbeat` (the keep-alive metric of the serving options) on the web handlers: `WebChatHandlersConfig` takes it
 * from the node core's options, so it must be called as the node core calls it — once per heartbeat written, with the
 * endpoint's path — not accepted and then ignored.
 */
import type { ChatEndpoint } from '../../src/serve/ChatRequestLog';
import { rawRequest } from '../helpers/rawRequest';
import { useEmulatedClient } from '../helpers/useEmulatedClient';
import { startHonoChat, type HonoChat } from './startHonoChat';

const upstream = useEmulatedClient();
let hono: HonoChat | undefined;
afterEach(async () => {
  await hono?.close();
  hono = undefined;
});

describe('createChatHandlers({ onHeartbeat })', () => {
  it('is called with /chat/sse for each `: ping` written while the upstream queues', async () => {
    const beats: ChatEndpoint[] = [];
    hono = await startHonoChat({ client: upstream.client, heartbeatMs: 40, onHeartbeat: (endpoint) => beats.push(endpoint) });
    const res = await rawRequest(`${hono.url}/chat/sse`, { body: { model: 'deepseek-chat#queue=300', messages: [{ role: 'user', content: 'hi' }] } });
    expect(res.status).toBe(200);
    const pings = res.body.split(': ping\n\n').length - 1;
    expect(pings).toBeGreaterThan(0);
    expect(beats).toEqual(Array.from({ length: pings }, () => '/chat/sse'));
  });
});
