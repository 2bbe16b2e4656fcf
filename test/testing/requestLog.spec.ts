/** The emulator's request log is bounded (count and bytes), or off. */
import { createRequestLog } from '../../src/testing/createRequestLog';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

const ask = (emulator: Emulator, content: string): Promise<Response> =>
  fetch(`${emulator.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'deepseek-chat', messages: [{ role: 'user', content }] }),
  });

describe('the emulator request log', () => {
  let emulator: Emulator | undefined;
  afterEach(async () => emulator?.close());

  it('keeps the latest maxRequests requests, numbered in arrival order', async () => {
    emulator = await startEmulator({ requestLog: { maxRequests: 3 } });
    for (let i = 0; i < 5; i += 1) await (await ask(emulator, `q${i}`)).text();
    expect(emulator.requests.map((r) => r.seq)).toEqual([3, 4, 5]);
  });

  it('keeps at most maxBytes of bodies and headers (the newest request always)', async () => {
    emulator = await startEmulator({ requestLog: { maxBytes: 250_000 } });
    for (let i = 0; i < 5; i += 1) await (await ask(emulator, 'x'.repeat(100_000))).text();
    expect(emulator.requests.map((r) => r.seq)).toEqual([4, 5]);
    await (await ask(emulator, 'y'.repeat(400_000))).text();
    expect(emulator.requests.map((r) => r.seq)).toEqual([6]);
  });

  it('keeps none with false, and waitForRequest still sees a request as it arrives', async () => {
    emulator = await startEmulator({ requestLog: false });
    const seen = emulator.waitForRequest((r) => (r.body as { messages?: Array<{ content?: string }> } | undefined)?.messages?.[0]?.content === 'hi');
    await (await ask(emulator, 'hi')).text();
    expect((await seen).seq).toBe(1);
    expect(emulator.requests).toEqual([]);
  });

  it('defaults to 1000 requests and 32 MiB', () => {
    const log = createRequestLog<{ headers: Record<string, string> }>();
    for (let i = 0; i < 1200; i += 1) log.add({ headers: {} });
    expect(log.records).toHaveLength(1000);
    const big = createRequestLog<{ headers: Record<string, string> }>();
    for (let i = 0; i < 40; i += 1) {
      const record = { headers: {} };
      big.add(record);
      big.sized(record, 1024 * 1024);
    }
    expect(big.records).toHaveLength(32);
  });
});
