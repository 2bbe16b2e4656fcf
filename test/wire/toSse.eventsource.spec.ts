/**
 * A real SSE client nobody here wrote — the `eventsource` npm package (v4, WHATWG EventSource) — reads what toSse
 * writes, over a loopback HTTP server, as the spec's client snippet does (POST via the package's `fetch` option).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventSource } from 'eventsource';
import { Observable, concat, delay, of, type Subscription } from 'rxjs';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import { toSse } from '../../src/wire/toSse';
import { readFixture, type FixtureName } from '../helpers/readFixture';
import { startServer, type TestServer } from '../helpers/startServer';

const fixture = (name: FixtureName): Observable<Uint8Array> => of(new Uint8Array(readFixture(name)));

/** What the server writes per path. */
const routes: Record<string, () => Observable<string>> = {
  '/chat/sse': () => fixture('deepseek-plain').pipe(parseSse(), decodeChunk(), toOutputChunks(), toSse()),
  '/chat/sse-error': () => fixture('inband-error-payload').pipe(parseSse(), decodeChunk(), toOutputChunks(), toSse()),
  '/chat/sse-slow': () =>
    concat(of(new Uint8Array()).pipe(delay(150)), fixture('moonshot-plain')).pipe(
      parseSse(),
      decodeChunk(),
      toOutputChunks(),
      toSse({ heartbeatMs: 20 }),
    ),
};

interface Received {
  type: 'message' | 'error';
  data: string | undefined;
}

describe('toSse read by the eventsource package', () => {
  let server: TestServer;
  const written: string[] = [];
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    server = await startServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        const route = routes[req.url ?? ''];
        if (req.method !== 'POST' || !route) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-cache',
          Connection: 'keep-alive',
        });
        subscriptions.push(
          route().subscribe({
            next: (text) => {
              written.push(text);
              res.write(text);
            },
            complete: () => res.end(),
          }),
        );
      });
    });
  });

  afterEach(() => {
    written.length = 0;
    for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
  });

  afterAll(async () => {
    await server.close();
  });

  /** Opens an EventSource with a POST body, records every message and error event, closes on [DONE] as the snippet does. */
  const read = (path: string): Promise<Received[]> =>
    new Promise((resolve, reject) => {
      const received: Received[] = [];
      const source = new EventSource(`${server.url}${path}`, {
        fetch: (input, init) =>
          fetch(input, {
            ...init,
            method: 'POST',
            headers: { ...init.headers, 'Content-Type': 'application/json', Authorization: 'Bearer test-key' },
            body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello, world!' }] }),
          }),
      });
      const guard = setTimeout(() => {
        source.close();
        reject(new Error(`no [DONE] within 10 s; got ${JSON.stringify(received)}`));
      }, 10_000);
      source.onmessage = (event) => {
        received.push({ type: 'message', data: event.data });
        if (event.data === '[DONE]') {
          clearTimeout(guard);
          source.close();
          resolve(received);
        }
      };
      // The in-band `event: error` frame arrives as an `error` event carrying data; a transport failure has no data.
      source.addEventListener('error', (event) => {
        const data = (event as unknown as { data?: string }).data;
        received.push({ type: 'error', data });
        if (data === undefined) {
          clearTimeout(guard);
          source.close();
          reject(new Error('transport error before [DONE]'));
        }
      });
    });

  it('receives every chunk as a message, in order, then [DONE]', async () => {
    const received = await read('/chat/sse');
    expect(received.map((r) => r.type)).toEqual(['message', 'message', 'message', 'message', 'message', 'message']);
    const chunks = received
      .slice(0, -1)
      .map((r) => JSON.parse(r.data!) as { message: { content: string }; done: boolean; index: number });
    expect(chunks.map((c) => c.message.content).join('')).toBe('你好！很高兴见到你。😀');
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3, 4]);
    expect(chunks.map((c) => c.done)).toEqual([false, false, false, false, true]);
    expect(received.at(-1)).toEqual({ type: 'message', data: '[DONE]' });
  });

  it('receives the chunks, then the error event with {message, type, code}, then [DONE]', async () => {
    const received = await read('/chat/sse-error');
    expect(received.map((r) => r.type)).toEqual(['message', 'error', 'message']);
    expect(JSON.parse(received[0]!.data!)).toEqual({
      message: { role: 'assistant', content: '开始' },
      done: false,
      index: 0,
    });
    expect(JSON.parse(received[1]!.data!)).toEqual({
      message: 'The upstream server is overloaded, please try again later.',
      type: 'upstream_error',
      code: 'overloaded',
    });
    expect(received[2]).toEqual({ type: 'message', data: '[DONE]' });
  });

  it('ignores the heartbeat comments written during a silence', async () => {
    const received = await read('/chat/sse-slow');
    expect(written.filter((text) => text === ': ping\n\n').length).toBeGreaterThan(0);
    expect(received.map((r) => r.data)).toEqual([
      '{"message":{"role":"assistant","content":"你好，我是 Kimi。"},"done":false,"index":0}',
      '{"message":{"role":"assistant","content":"有什么可以帮你？"},"done":false,"index":1}',
      '{"message":{"role":"assistant","content":""},"done":true,"index":2,"finish_reason":"stop","usage":{"prompt_tokens":19,"completion_tokens":13,"total_tokens":32}}',
      '[DONE]',
    ]);
  });
});
