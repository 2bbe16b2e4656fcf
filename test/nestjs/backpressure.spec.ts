import { connect, type Socket } from 'node:net';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator, type EmulatorRequest } from '../../src/testing/startEmulator.js';
import { MySseController } from './MySseController.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';


/**
 * Resolves once `read()` has not changed for `quietMs` AND over `quietPolls` polls (the emulator, the app and this
 * test share one event loop: a long synchronous burst must not pass for quiet); rejects after `deadlineMs`.
 */
const settles = async (read: () => number, quietMs: number, quietPolls: number, deadlineMs: number): Promise<number> => {
  const deadline = Date.now() + deadlineMs;
  let value = read();
  let since = Date.now();
  let polls = 0;
  while (Date.now() - since < quietMs || polls < quietPolls) {
    if (Date.now() > deadline) throw new Error(`still changing after ${deadlineMs} ms (now ${value})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    polls += 1;
    if (read() !== value) [value, since, polls] = [read(), Date.now(), 0];
  }
  return value;
};

describe('a slow client pauses the upstream read (demand gate through the writers)', () => {
  let emulator: Emulator;
  let nest: NestTestApp;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 5 });
    const client = { provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat', retry: false as const };
    nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true })], controllers: [MySseController] });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await nest.close();
    await emulator.close();
  });

  it.each(['/chat/sse', '/my/sse'])('%s: a client that stops reading stops the emulator (TCP), not the gateway’s memory', async (path) => {
    const before = emulator.requests.length;
    const body = JSON.stringify({ model: 'deepseek-chat#tokens=1000000', messages: [{ role: 'user', content: 'a very long story' }] });
    const { port } = new URL(nest.url);
    const socket = connect(Number(port), '127.0.0.1');
    sockets.push(socket);
    socket.pause(); // never read: the kernel buffers fill up, then res.write() returns false
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const upstream: EmulatorRequest = await emulator.waitForRequest((request) => request.seq > before);
    // The answer is ~1e6 frames; without demand reaching the upstream read the gateway would drain the emulator
    // into its own memory and the emulator's byte count would keep growing. With it, the count stops.
    const paused = await settles(() => upstream.bytesWritten, 1000, 30, 60_000);
    expect(upstream.waitingForDrain).toBe(true);
    expect(upstream.completed).toBe(false);
    expect(paused).toBeLessThan(64 * 1024 * 1024);
    socket.destroy();
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
  }, 90_000);
});
