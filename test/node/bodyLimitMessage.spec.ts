/**
 * The 413's message names the body limit in bytes, as it says: with the default `bodyLimit` (`'1mb'`) it read "the
 * request body is larger than the limit of 1mb bytes".
 */
import { startExpressChat } from '../helpers/startExpressChat';
import { rawRequest } from '../helpers/rawRequest';
import type { TestServer } from '../helpers/startServer';
import { useEmulatedClient } from '../helpers/useEmulatedClient';
import { expectErrorBeforeCommit } from '../helpers/wireAssertions';

const upstream = useEmulatedClient();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the 413 of a body over bodyLimit', () => {
  it.each([
    [undefined, 1_048_576],
    ['2kb', 2048],
    [512, 512],
  ] as const)('bodyLimit %p: names the limit as %p bytes', async (bodyLimit, limitBytes) => {
    server = await startExpressChat({ client: upstream.client, heartbeatMs: 0, ...(bodyLimit === undefined ? {} : { bodyLimit }) });
    const res = await rawRequest(`${server.url}/chat/json`, { body: { messages: [{ role: 'user', content: 'x'.repeat(limitBytes + 1) }] } });
    expect(expectErrorBeforeCommit(res, '/chat/json', 413, 'payload_too_large').message).toBe(`the request body is larger than the limit of ${limitBytes} bytes`);
  });
});
