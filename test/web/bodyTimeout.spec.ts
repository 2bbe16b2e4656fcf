/**
 * The web handlers' body deadline (`bodyTimeoutMs`): a body that does not arrive in time gets 408 `request_timeout`
 * in the endpoint's error format (as the node endpoints), instead of holding the request until the platform gives up.
 */
import { connect } from 'node:net';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { startHonoChat, type HonoChat } from './startHonoChat';

let emulator: Emulator;
let client: ChatClient;
let chat: HonoChat;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 4 });
  client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 });
  chat = await startHonoChat({ client, bodyTimeoutMs: 300 });
});
afterAll(async () => {
  await chat.close();
  await client.close();
  await emulator.close();
});

/** Sends the headers and the first byte of a body announced as 1000 bytes, then nothing; resolves with what came back. */
const trickle = (path: string): Promise<{ text: string; ms: number }> =>
  new Promise((resolve) => {
    const { port } = new URL(chat.url);
    const started = performance.now();
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (part: Buffer) => {
      text += part.toString();
      if (/\r\n\r\n[\s\S]*\}/.test(text)) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    setTimeout(() => socket.destroy(), 8000);
  });

describe('createChatHandlers: the body deadline', () => {
  it.each(['/chat/json', '/chat/stream', '/chat/sse'])('answers a body slower than bodyTimeoutMs on %s with 408 request_timeout', async (path) => {
    const { text, ms } = await trickle(path);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"code":"request_timeout"');
    expect(text).toContain('within 300 ms');
    expect(ms).toBeLessThan(5000);
    expect(emulator.requests).toHaveLength(0);
  });
});
