/**
 * The client's own pool: a request waits at most `connectionWaitMs` for one of its `connections` (then a clear
 * `upstream_busy`, not a silent queue inside undici); a `json()` answer is capped (`maxAnswerChars`) and can have a
 * deadline (`timeouts.json`). Against a real server on 127.0.0.1.
 */
import type { ServerResponse } from 'node:http';
import { lastValueFrom, type Observable } from 'rxjs';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { isAbortedError, isConfigError, isTimeoutError, type CapacityError, type StreamProtocolError } from '../../src/core/errors';
import { toErrorResponse } from '../../src/core/toErrorResponse';
import { promptBound } from '../helpers/promptBound';
import { startServer, type TestServer } from '../helpers/startServer';

const MESSAGES = [{ role: 'user' as const, content: 'hi' }];
const frame = (content: string): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content } }] })}\n\n`;
const failure = (source: Observable<unknown>): Promise<unknown> =>
  lastValueFrom(source).then(
    () => {
      throw new Error('expected an error');
    },
    (error: unknown) => error,
  );

describe('createChatClient capacity', () => {
  let server: TestServer;
  let client: ChatClient | undefined;
  const held: ServerResponse[] = [];
  afterEach(async () => {
    await client?.close();
    client = undefined;
    held.splice(0);
    await server?.close();
  });

  /** A server that never answers a request whose message is 'hold', and answers 'hi' at once. */
  const start = async (): Promise<void> => {
    server = await startServer((req, res) => {
      let text = '';
      req.on('data', (part: Buffer) => (text += part.toString()));
      req.on('end', () => {
        if (text.includes('"hold"')) return void held.push(res);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${frame('ok')}data: [DONE]\n\n`);
      });
    });
  };

  it('a request that finds every connection busy gets upstream_busy after connectionWaitMs, and a 503 on the wire', async () => {
    await start();
    client = createChatClient({ baseUrl: server.url, model: 'm', connections: 2, connectionWaitMs: 200, retry: false });
    const holds = [1, 2].map(() => client?.json({ messages: [{ role: 'user', content: 'hold' }] }).subscribe());
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 10)); // both connections busy
    const started = performance.now();
    const error = (await failure(client.json({ messages: MESSAGES }))) as CapacityError;
    expect(performance.now() - started).toBeLessThan(promptBound(3000)); // 0.2 s wait, generous margin
    expect(error).toMatchObject({ name: 'CapacityError', code: 'upstream_busy', retryAfterSeconds: 1 });
    expect(toErrorResponse(error)).toMatchObject({ status: 503, body: { type: 'server_error', code: 'upstream_busy' }, retryAfterSeconds: 1 });
    expect(server.requests).toHaveLength(2); // the third never reached the upstream
    holds.forEach((hold) => hold?.unsubscribe()); // frees both connections
    expect((await lastValueFrom(client.json({ messages: MESSAGES }))).message.content).toBe('ok');
  });

  it('a waiting request is served as soon as a connection frees up, first come first served', async () => {
    await start();
    client = createChatClient({ baseUrl: server.url, model: 'm', connections: 1, connectionWaitMs: 5000, retry: false });
    const hold = client.json({ messages: [{ role: 'user', content: 'hold' }] }).subscribe();
    const waiting = lastValueFrom(client.json({ messages: MESSAGES }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.requests).toHaveLength(1);
    hold.unsubscribe();
    expect((await waiting).message.content).toBe('ok');
  });

  it('an abort during the wait ends it at once with an AbortedError', async () => {
    await start();
    client = createChatClient({ baseUrl: server.url, model: 'm', connections: 1, connectionWaitMs: 60_000, retry: false });
    const hold = client.json({ messages: [{ role: 'user', content: 'hold' }] }).subscribe();
    const controller = new AbortController();
    const waiting = failure(client.json({ messages: MESSAGES }, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    expect(isAbortedError(await waiting)).toBe(true);
    expect(performance.now() - started).toBeLessThan(promptBound(2000));
    hold.unsubscribe();
  });

  it('refuses a bad connections or connectionWaitMs with a ConfigError', () => {
    for (const config of [{ connections: 0 }, { connections: 1.5 }, { connectionWaitMs: -1 }, { connectionWaitMs: Number.NaN }]) {
      let caught: unknown;
      try {
        createChatClient({ baseUrl: 'http://127.0.0.1:1', ...config });
      } catch (error) {
        caught = error;
      }
      expect(isConfigError(caught)).toBe(true);
    }
  });

  it('json() past maxAnswerChars: answer_too_large, and the upstream connection is closed', async () => {
    let closed: Promise<void> = Promise.resolve();
    server = await startServer((req, res) => {
      closed = new Promise((resolve) => res.once('close', () => resolve()));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const tick = setInterval(() => res.write(frame('x'.repeat(1000))), 5);
      res.once('close', () => clearInterval(tick));
      req.resume();
    });
    client = createChatClient({ baseUrl: server.url, model: 'm', maxAnswerChars: 10_000, retry: false });
    const error = (await failure(client.json({ messages: MESSAGES }))) as StreamProtocolError;
    expect(error).toMatchObject({ name: 'StreamProtocolError', code: 'answer_too_large' });
    expect(toErrorResponse(error)).toMatchObject({ status: 502, body: { type: 'upstream_error', code: 'answer_too_large' } });
    await closed; // the endless answer was aborted
  });

  it('json() with timeouts.json: a TimeoutError("total") at the deadline, retries included', async () => {
    await start();
    client = createChatClient({ baseUrl: server.url, model: 'm', timeouts: { json: 300 } });
    const started = performance.now();
    const error = await failure(client.json({ messages: [{ role: 'user', content: 'hold' }] }));
    expect(isTimeoutError(error) && error.phase === 'total' && error.timeoutMs === 300).toBe(true);
    expect(performance.now() - started).toBeLessThan(promptBound(3000));
  });
});
