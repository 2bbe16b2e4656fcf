import compression from 'compression';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { concat, EMPTY, NEVER, Observable, of, throwError, timer, map } from 'rxjs';
import { AbortedError, TimeoutError, UpstreamHttpError } from '../../src/core/errors';
import { sendSse } from '../../src/node/sendSse';
import type { WriteOutcome } from '../../src/serve/WriteOutcome';
import { serverSentEvent } from '../../src/core/serverSentEvent';
import { createChatClient } from '../../src/client/createChatClient';
import { createDemandGate } from '../../src/core/createDemandGate';
import { promptBound } from '../helpers/promptBound';
import { controlledRequest, rawRequest } from '../helpers/rawRequest';
import { startServer, type TestServer } from '../helpers/startServer';
import { chunk, sleep, waitFor } from '../helpers/streamSources';
import { expectErrorAfterCommit, expectErrorBeforeCommit, expectSseAnswer, expectSuccessHeaders, PING, sseFrames } from '../helpers/wireAssertions';

/** One upstream `chat.completion.chunk` SSE frame carrying `content`. */
const upstreamFrame = (content: string): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

describe('sendSse', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  const serve = async (source: () => Observable<unknown>, heartbeatMs?: number, onOutcome?: (o: WriteOutcome) => void): Promise<string> => {
    server = await startServer((_req, res) => void sendSse(res, source(), heartbeatMs === undefined ? {} : { heartbeatMs }).then(onOutcome));
    return server.url;
  };

  it('writes data frames and data: [DONE] with the SSE headers (spec example, byte for byte)', async () => {
    const url = await serve(() => of(chunk(0, "I'm "), chunk(1, 'doing well'), serverSentEvent({ data: chunk(2, ', thank you!', true) })));
    const res = await rawRequest(url, { body: { messages: [] } });
    expect(expectSseAnswer(res)).toHaveLength(3);
    expect(res.body).toBe(
      'data: {"message":{"role":"assistant","content":"I\'m "},"done":false,"index":0}\n\n' +
        'data: {"message":{"role":"assistant","content":"doing well"},"done":false,"index":1}\n\n' +
        'data: {"message":{"role":"assistant","content":", thank you!"},"done":true,"index":2}\n\n' +
        'data: [DONE]\n\n',
    );
  });

  it('writes the first frame at once, before the rest of its burst; the rest of the burst in one write', async () => {
    const writes: string[] = [];
    const frame = (i: number): string => `data: ${JSON.stringify(chunk(i, String(i)))}\n\n`;
    server = await startServer((_req, res) => {
      const write = res.write.bind(res) as (chunk: string | Buffer) => boolean;
      res.write = ((chunk: string | Buffer) => {
        writes.push(chunk.toString());
        return write(chunk);
      }) as typeof res.write;
      // One synchronous burst (a network read carrying many events), then a value of a later tick.
      void sendSse(res, concat(of(chunk(0, '0'), chunk(1, '1'), chunk(2, '2')), timer(20).pipe(map(() => chunk(3, '3')))));
    });
    const res = await rawRequest(server.url);
    expect(res.body).toBe(`${frame(0)}${frame(1)}${frame(2)}${frame(3)}data: [DONE]\n\n`);
    expect(writes).toEqual([frame(0), frame(1) + frame(2)]); // frame 3 goes out with the end
  });

  it('leaves the socket uncorked after the first frame: it is sent before the rest of its burst is handled', async () => {
    // Node corks a response's socket at each write until the next tick, which comes only after the whole burst.
    const corked: number[] = [];
    server = await startServer((_req, res) => {
      const source = new Observable<unknown>((subscriber) => {
        subscriber.next(chunk(0, '0'));
        corked.push(res.socket?.writableCorked ?? -1); // still inside the burst
        subscriber.next(chunk(1, '1', true));
        subscriber.complete();
      });
      void sendSse(res, source);
    });
    const res = await rawRequest(server.url);
    expect(expectSseAnswer(res)).toHaveLength(2);
    expect(corked).toEqual([0]);
  });

  it("counts the outcome's bytes as the UTF-8 bytes written (CJK, emoji, a lone surrogate), over bursts and the end", async () => {
    const outcomes: WriteOutcome[] = [];
    const texts = ['你好', '世界 🙂', 'a\uD800b', 'plain'];
    const url = await serve(
      () => concat(of(chunk(0, texts[0]!), chunk(1, texts[1]!)), timer(20).pipe(map(() => chunk(2, texts[2]!))), of(chunk(3, texts[3]!, true))),
      undefined,
      (o) => outcomes.push(o),
    );
    const res = await rawRequest(url);
    const expected = `${[0, 1, 2, 3].map((i) => `data: ${JSON.stringify(chunk(i, texts[i]!, i === 3))}\n\n`).join('')}data: [DONE]\n\n`;
    expect(res.body).toBe(expected);
    expect(outcomes).toEqual([expect.objectContaining({ result: 'completed', values: 4, bytes: Buffer.byteLength(expected) })]);
  });

  it('writes a plain string as one data: line of JSON, so a "[DONE]" or a line break of the user cannot end the stream', async () => {
    const url = await serve(() => of('[DONE]', 'hello\nworld', serverSentEvent({ data: 'two\nlines' })));
    const res = await rawRequest(url);
    expect(res.body).toBe('data: "[DONE]"\n\ndata: "hello\\nworld"\n\ndata: two\ndata: lines\n\ndata: [DONE]\n\n');
    expect(sseFrames(res.body).filter((frame) => frame.data === '[DONE]')).toHaveLength(1);
  });

  it('an empty Flux is a 200 with the SSE headers and just data: [DONE]', async () => {
    const outcomes: WriteOutcome[] = [];
    const res = await rawRequest(await serve(() => EMPTY, undefined, (o) => outcomes.push(o)));
    expectSuccessHeaders(res, '/chat/sse');
    expect(res.body).toBe('data: [DONE]\n\n');
    expect(outcomes).toEqual([expect.objectContaining({ result: 'completed', status: 200, committed: true, values: 0 })]);
  });

  it('writes the fields of a serverSentEvent (event, id, retry, comment)', async () => {
    const url = await serve(() => of(serverSentEvent({ event: 'note', id: '7', retry: 0, comment: 'hi', data: 'two\nlines' })));
    expect((await rawRequest(url)).body).toBe(': hi\nevent: note\nid: 7\nretry: 0\ndata: two\ndata: lines\n\ndata: [DONE]\n\n');
  });

  it('sends : ping during a silence before the first frame, committing the headers', async () => {
    const url = await serve(() => timer(400).pipe(map(() => chunk(0, 'late', true))), 50);
    const res = await rawRequest(url);
    expect(res.status).toBe(200);
    expect(res.pieces[0]?.text).toBe(PING);
    expect(res.pieces[0]?.at).toBeLessThan(350);
    expect(sseFrames(res.body).filter((f) => f.comment === 'ping').length).toBeGreaterThanOrEqual(2);
    expect(expectSseAnswer(res)).toHaveLength(1);
  });

  it('sends : ping during a stall mid-stream, and never inside a frame', async () => {
    const url = await serve(() => concat(of(chunk(0, 'a')), timer(300).pipe(map(() => chunk(1, 'b', true)))), 50);
    const res = await rawRequest(url);
    const frames = sseFrames(res.body);
    expect(frames[0]).toEqual({ data: JSON.stringify(chunk(0, 'a')) });
    expect(frames.slice(1, -2).every((f) => f.comment === 'ping')).toBe(true);
    expect(frames.length).toBeGreaterThanOrEqual(5);
    expectSseAnswer(res);
  });

  it('answers an error before the first frame with a real status, event: error and [DONE]', async () => {
    const res = await rawRequest(await serve(() => throwError(() => new UpstreamHttpError(429, 'wait', { retryAfterMs: 3000 }))));
    expectErrorBeforeCommit(res, '/chat/sse', 429);
    expect(res.headers['retry-after']).toBe('3');
  });

  it('writes an error after the commit as event: error + [DONE]', async () => {
    const url = await serve(() => concat(of(chunk(0, 'a')), throwError(() => new TimeoutError('idle', 500))));
    const { error } = expectErrorAfterCommit(await rawRequest(url), '/chat/sse', 1);
    expect(error).toEqual({ message: 'upstream idle timeout after 500 ms', type: 'timeout_error', code: 'timeout' });
  });

  it('an error after only heartbeats is in-band too (the status was already sent)', async () => {
    const url = await serve(() => timer(200).pipe(map(() => { throw new TimeoutError('first_chunk', 200); })), 50);
    const res = await rawRequest(url);
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/^(: ping\n\n)+event: error\ndata: \{"message":"upstream first chunk timeout after 200 ms","type":"timeout_error","code":"timeout"\}\n\ndata: \[DONE\]\n\n$/);
  });

  it('ends a committed stream with an error frame when the signal aborts (graceful shutdown)', async () => {
    const controller = new AbortController();
    const outcomes: WriteOutcome[] = [];
    server = await startServer((_req, res) => void sendSse(res, concat(of(chunk(0, 'a')), NEVER), { signal: controller.signal }).then((o) => outcomes.push(o)));
    const pending = rawRequest(server.url, { onPiece: () => void controller.abort(new AbortedError('the gateway is shutting down')) });
    const { error } = expectErrorAfterCommit(await pending, '/chat/sse', 1);
    expect(error.message).toBe('the gateway is shutting down');
    expect(outcomes).toEqual([expect.objectContaining({ result: 'failed', committed: true })]);
  });

  it('unsubscribes when the client disconnects, and stops the heartbeat', async () => {
    let unsubscribed = false;
    const outcomes: WriteOutcome[] = [];
    const url = await serve(() => new Observable(() => () => void (unsubscribed = true)), 20, (o) => outcomes.push(o));
    await rawRequest(url, { onPiece: () => 'abort' });
    await waitFor(() => unsubscribed && outcomes.length === 1);
    expect(outcomes[0]).toMatchObject({ result: 'disconnected', committed: true, values: 0 });
  });

  it('a client that stops reading, then disconnects while the demand gate is closed, aborts the upstream request at once', async () => {
    let upstreamClosedAt = 0;
    const upstream = await startServer((_req, res) => {
      res.once('close', () => (upstreamClosedAt = performance.now()));
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const frame = upstreamFrame('x'.repeat(8000));
      const pump = (): void => {
        while (!res.destroyed) if (!res.write(frame)) return void res.once('drain', pump);
      };
      pump();
    });
    const client = createChatClient({ baseUrl: upstream.url, model: 'm', retry: 0 });
    const demand = createDemandGate();
    const outcomes: WriteOutcome[] = [];
    server = await startServer(
      (_req, res) => void sendSse(res, client.sse({ messages: [{ role: 'user', content: 'hi' }] }, { demand }), { demand, heartbeatMs: 0 }).then((o) => outcomes.push(o)),
    );
    try {
      const reader = controlledRequest(server.url, { paused: true });
      await reader.response;
      await waitFor(() => !demand.isOpen);
      await sleep(200);
      expect(demand.isOpen).toBe(false); // the writer waits for a 'drain' that will never come
      const destroyedAt = performance.now();
      reader.destroy();
      await waitFor(() => upstreamClosedAt > 0 && outcomes.length === 1, 3000);
      expect(upstreamClosedAt - destroyedAt).toBeLessThan(promptBound(1000));
      expect(outcomes[0]).toMatchObject({ result: 'disconnected', committed: true });
      expect(demand.isOpen).toBe(true);
    } finally {
      await client.close();
      await upstream.close();
    }
  });

  it('is not buffered by compression middleware (no-transform; flushed per frame)', async () => {
    const app = express();
    app.use(compression({ threshold: 0 }));
    app.get('/sse', (_req, res) => void sendSse(res, concat(of(chunk(0, 'a')), timer(300).pipe(map(() => chunk(1, 'b', true))))));
    app.get('/json', (_req, res) => void res.json({ big: 'x'.repeat(2000) }));
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      expect((await rawRequest(`${base}/json`, { headers: { 'Accept-Encoding': 'gzip' } })).headers['content-encoding']).toBe('gzip');
      const res = await rawRequest(`${base}/sse`, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.pieces[0]?.text).toBe(`data: ${JSON.stringify(chunk(0, 'a'))}\n\n`);
      expect((res.pieces.at(-1)?.at ?? 0) - (res.pieces[0]?.at ?? 0)).toBeGreaterThan(200);
      expectSseAnswer(res);
    } finally {
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
    }
  });

  it('turns a frame that cannot be written (event with a line break) into an error, not a crash', async () => {
    const url = await serve(() => of(serverSentEvent({ event: 'a\nb', data: 'x' })));
    expectErrorBeforeCommit(await rawRequest(url), '/chat/sse', 500);
  });
});
