/**
 * A POST that says `Content-Type: application/json` but has no body at all (no `Content-Length`, no
 * `Transfer-Encoding`: `curl -X POST -H 'Content-Type: application/json' …` without `-d`). Its media type is right,
 * so a 415 "must be JSON (Content-Type: application/json)" sends the client after the wrong fix: it is a 400 that
 * says the body is missing, in the endpoint's format. A bodiless request of another type stays a 415.
 */
import { connect } from 'node:net';
import { createChatEndpoints } from '../../src/node/createChatEndpoints';
import { startServer, type TestServer } from '../helpers/startServer';
import { useEmulatedClient } from '../helpers/useEmulatedClient';
import { expectErrorBeforeCommit } from '../helpers/wireAssertions';
import type { RawResponse } from '../helpers/rawRequest';

const upstream = useEmulatedClient();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Sends `head` (request line and headers, no body) on a raw socket; resolves with the parsed response. */
const bodiless = (url: string, head: string): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.write(`${head}Host: localhost\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (piece: string) => (text += piece));
    socket.on('error', reject);
    socket.on('close', () => {
      const top = text.slice(0, text.indexOf('\r\n\r\n'));
      const [status = '', ...lines] = top.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(status.split(' ')[1]), headers, body: text.slice(top.length + 4), pieces: [] }); // Content-Length bodies
    });
    socket.setTimeout(5000, () => socket.destroy());
  });

describe('a POST without a body', () => {
  it.each([
    ['/chat/json', 'json'],
    ['/chat/stream', 'ndjson'],
    ['/chat/sse', 'sse'],
  ] as const)('%s: application/json without a body is a 400 that says so, not a 415', async (endpoint, wire) => {
    const endpoints = createChatEndpoints({ client: upstream.client, heartbeatMs: 0 });
    server = await startServer((req, res) => void endpoints.post(wire, req, res));
    const res = await bodiless(server.url, `POST ${endpoint} HTTP/1.1\r\nContent-Type: application/json\r\n`);
    expect(expectErrorBeforeCommit(res, endpoint, 400, 'invalid_request').message).toMatch(/no body/);
    expect(upstream.emulator.requests).toHaveLength(0);
  });

  it('without a Content-Type either, it stays a 415', async () => {
    const endpoints = createChatEndpoints({ client: upstream.client, heartbeatMs: 0 });
    server = await startServer((req, res) => void endpoints.post('json', req, res));
    expectErrorBeforeCommit(await bodiless(server.url, 'POST /chat/json HTTP/1.1\r\n'), '/chat/json', 415, 'unsupported_media_type');
  });
});
