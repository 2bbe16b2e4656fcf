/**
 * The write stall deadline (`writeStallTimeoutMs`): a client that never reads a long stream — a real socket on
 * 127.0.0.1 that is paused and never drained — has its request ended once the response has waited that long to be
 * written: the upstream request is aborted (its connection released), the client's socket destroyed, and the log
 * says `client_stalled`. A client that reads slowly but keeps draining is left alone. Without the deadline the
 * request lives as long as the client's socket does.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog';
import { createChatEndpoints } from '../../src/node/createChatEndpoints';

const STALL_MS = 300;
const CHUNK = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'x'.repeat(16_000) }, finish_reason: null }] })}\n\n`;

let upstream: Server;
const upstreamRequests: Array<{ closedEarly: boolean; closed: Promise<void> }> = [];
let client: ChatClient;
let server: Server;
let port: number;
const logs: ChatRequestLog[] = [];

/** Writes chunks until the socket is full, then again on each drain, until the response closes: an endless answer. */
const pump = (res: ServerResponse): void => {
  while (!res.destroyed && res.write(CHUNK));
  if (!res.destroyed) res.once('drain', () => pump(res));
};

beforeAll(async () => {
  // An upstream streaming 16 KB chunks for as long as it is read (with backpressure): the buffers between it and a
  // client that never reads fill within a few hundred chunks.
  upstream = createServer((req, res) => {
    const record = { closedEarly: false, closed: new Promise<void>((resolve) => res.once('close', resolve)) };
    res.once('close', () => (record.closedEarly = !res.writableFinished));
    upstreamRequests.push(record);
    req.resume();
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    pump(res);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  client = createChatClient({
    baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    model: 'm',
    retry: 0,
  });
  const endpoints = createChatEndpoints({
    client,
    writeStallTimeoutMs: STALL_MS,
    heartbeatMs: 0,
    log: (entry) => logs.push(entry),
  });
  server = createServer((req, res) => void endpoints.post(req.url === '/chat/sse' ? 'sse' : 'ndjson', req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await client.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

/** Sends a chat request on a raw socket (paused: nothing is read until the test reads). */
const request = (path: string): Socket => {
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'an endless one' }] });
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.pause();
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return socket;
};

const connections = (): Promise<number> =>
  new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

const waitFor = async (check: () => boolean | Promise<boolean>, ms: number): Promise<void> => {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('the write stall deadline', () => {
  it.each(['/chat/stream', '/chat/sse'])(
    'ends a request on %s whose client never reads: upstream aborted, socket destroyed, logged',
    async (path) => {
      logs.length = 0;
      const seen = upstreamRequests.length;
      const socket = request(path); // never read
      try {
        await waitFor(() => logs.length > 0, 5000);
        expect(logs[0]).toMatchObject({ status: 200, result: 'failed', error: { code: 'client_stalled' } });
        expect(logs[0]?.error?.message).toMatch(/read nothing for 300 ms/);
        expect(logs[0]?.chunks).toBeGreaterThan(0);
        // the upstream request was abandoned (its connection released), not read to an end it never has
        expect(upstreamRequests).toHaveLength(seen + 1);
        await upstreamRequests[seen]?.closed;
        expect(upstreamRequests[seen]?.closedEarly).toBe(true);
        // the client's connection was destroyed by the server
        await waitFor(async () => (await connections()) === 0, 2000);
      } finally {
        socket.destroy();
      }
    },
  );

  it('leaves a client alone that reads slowly but keeps draining, for longer than the deadline', async () => {
    logs.length = 0;
    const socket = request('/chat/stream');
    let received = 0;
    socket.on('data', (part: Buffer) => (received += part.byteLength));
    // read for 100 ms, pause 150 ms (less than the deadline), for about four deadlines
    for (let round = 0; round < 5; round++) {
      socket.resume();
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.pause();
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(logs).toHaveLength(0);
    expect(received).toBeGreaterThan(1_000_000);
    expect(socket.destroyed).toBe(false);
    socket.destroy();
    await waitFor(() => logs.length > 0, 2000);
    expect(logs[0]).toMatchObject({ result: 'disconnected' });
  });
});
