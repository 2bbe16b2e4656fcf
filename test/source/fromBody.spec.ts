import { PassThrough, Readable } from 'node:stream';
import { lastValueFrom, map, take, toArray } from 'rxjs';
import { Agent, request } from 'undici';
import { isAbortedError, isNetworkError } from '../../src/core/errors';
import { createDemandGate } from '../../src/core/createDemandGate';
import { fromBody } from '../../src/source/fromBody';
import { promptBound } from '../helpers/promptBound';
import { startServer, type TestServer } from '../helpers/startServer';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (chunks: Uint8Array[]): string => Buffer.concat(chunks).toString('utf8');
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('fromBody', () => {
  it('emits the chunks of a Node Readable and completes', async () => {
    const out = await lastValueFrom(
      fromBody(Readable.from([Buffer.from('a'), Buffer.from('bc')], { objectMode: false })).pipe(toArray()),
    );
    expect(text(out)).toBe('abc');
  });

  it('emits the chunks of a web ReadableStream and completes', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes('x'));
        controller.enqueue(bytes('y'));
        controller.close();
      },
    });
    expect(text(await lastValueFrom(fromBody(body).pipe(toArray())))).toBe('xy');
  });

  it('emits the chunks of an AsyncIterable and completes', async () => {
    async function* gen(): AsyncGenerator<Uint8Array> {
      yield bytes('1');
      yield bytes('2');
    }
    expect(text(await lastValueFrom(fromBody(gen()).pipe(toArray())))).toBe('12');
  });

  it('cancels a web stream whose read is pending when unsubscribed', async () => {
    const cancelled = jest.fn();
    const body = new ReadableStream<Uint8Array>({ cancel: cancelled });
    const subscription = fromBody(body).subscribe();
    await delay(10);
    subscription.unsubscribe();
    await delay(10);
    expect(cancelled).toHaveBeenCalledTimes(1);
  });

  it('destroys a Node Readable whose read is pending when unsubscribed', async () => {
    const body = new Readable({ read() {} });
    const subscription = fromBody(body).subscribe();
    await delay(10);
    subscription.unsubscribe();
    expect(body.destroyed).toBe(true);
  });

  it('calls return() on an async iterator when unsubscribed', async () => {
    const returned = jest.fn(async () => ({ done: true as const, value: undefined }));
    const iterable: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<Uint8Array>>(() => undefined),
        return: returned,
      }),
    };
    fromBody(iterable).subscribe().unsubscribe();
    expect(returned).toHaveBeenCalledTimes(1);
  });

  it('a failing body errors with a NetworkError that keeps the cause', async () => {
    const body = new Readable({ read() {} });
    const seen = lastValueFrom(fromBody(body)).catch((error: unknown) => error);
    body.push(Buffer.from('a'));
    await delay(5);
    const cause = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    body.destroy(cause);
    const error = await seen;
    expect(isNetworkError(error)).toBe(true);
    expect((error as Error).cause).toBe(cause);
    expect((error as Error).message).toContain('ECONNRESET');
  });

  it('reads nothing while the demand gate is closed, and reads on when it opens', async () => {
    const demand = createDemandGate();
    let pulls = 0;
    const body = new Readable({
      highWaterMark: 1,
      read() {
        pulls += 1;
        this.push(pulls <= 5 ? Buffer.from(String(pulls)) : null);
      },
    });
    const got: string[] = [];
    const done = new Promise<void>((resolve) =>
      fromBody(body, { demand }).subscribe({
        next: (chunk) => {
          got.push(Buffer.from(chunk).toString());
          if (got.length === 2) demand.pause();
        },
        complete: resolve,
      }),
    );
    await delay(30);
    expect(got).toEqual(['1', '2']);
    const pullsWhilePaused = pulls;
    await delay(30);
    expect(pulls).toBe(pullsWhilePaused);
    demand.resume();
    await done;
    expect(got.join('')).toBe('12345'); // Node may hand over the chunks buffered meanwhile as one
  });

  it('unsubscribing while waiting on a closed gate cancels the body', async () => {
    const demand = createDemandGate();
    demand.pause();
    const body = new Readable({ read() {} });
    const subscription = fromBody(body, { demand }).subscribe();
    await delay(5);
    subscription.unsubscribe();
    expect(body.destroyed).toBe(true);
  });

  it('a Node body that fails while the gate is closed: no uncaught exception, the error comes once the gate opens', async () => {
    const demand = createDemandGate();
    const body = new PassThrough();
    const got: string[] = [];
    let failure: unknown;
    fromBody(body, { demand }).subscribe({
      next: (chunk) => {
        got.push(Buffer.from(chunk).toString());
        demand.pause(); // the sink is full
      },
      error: (error: unknown) => (failure = error),
    });
    body.write('data: a\n\n');
    await delay(10);
    expect(got).toEqual(['data: a\n\n']);
    expect(body.listenerCount('error')).toBeGreaterThan(0); // nobody reads, yet an 'error' has a listener
    const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    body.destroy(cause);
    await delay(20); // an 'error' without listener would have been thrown by now
    expect(failure).toBeUndefined();
    demand.resume();
    await delay(10);
    expect(isNetworkError(failure)).toBe(true);
    expect((failure as Error).cause).toBe(cause);
  });

  it('keepOnUnsubscribe() returning true leaves the body open and without our listeners', async () => {
    const body = new PassThrough();
    const before = ['readable', 'end', 'close', 'error'].map((event) => body.listenerCount(event));
    const subscription = fromBody(body, { keepOnUnsubscribe: () => true }).subscribe();
    await delay(5); // a read is pending
    subscription.unsubscribe();
    expect(body.destroyed).toBe(false);
    expect(['readable', 'end', 'close', 'error'].map((event) => body.listenerCount(event))).toEqual(before);
    const rest: Buffer[] = [];
    body.on('data', (chunk: Buffer) => rest.push(chunk));
    body.end('tail');
    await delay(5);
    expect(Buffer.concat(rest).toString()).toBe('tail'); // someone else can finish it
  });

  it('keepOnUnsubscribe() returning false cancels the body as usual', async () => {
    const body = new PassThrough();
    const subscription = fromBody(body, { keepOnUnsubscribe: () => false }).subscribe();
    await delay(5);
    subscription.unsubscribe();
    expect(body.destroyed).toBe(true);
  });

  it('an aborted signal cancels the body and errors with an AbortedError', async () => {
    const controller = new AbortController();
    const body = new Readable({ read() {} });
    const seen = lastValueFrom(fromBody(body, { signal: controller.signal })).catch((error: unknown) => error);
    controller.abort();
    expect(isAbortedError(await seen)).toBe(true);
    expect(body.destroyed).toBe(true);
  });

  describe('over a real socket', () => {
    let server: TestServer;
    let agent: Agent;
    afterEach(async () => {
      await agent.close();
      await server.close();
    });

    it('reads a body sent in pieces with pauses (each read waits for the next piece), then ends; one listener set per body', async () => {
      const pieces = ['data: a', '\n\n', 'data: 你', '好\n\n', 'data: [DONE]\n\n'];
      server = await startServer(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const piece of pieces) {
          res.write(piece);
          await delay(15);
        }
        res.end();
      });
      agent = new Agent();
      const response = await request(server.url, { dispatcher: agent });
      const readable: number[] = [];
      const chunks = await lastValueFrom(
        fromBody(response.body).pipe(
          map((chunk) => (readable.push(response.body.listenerCount('readable')), chunk)),
          toArray(),
        ),
      );
      expect(text(chunks)).toBe(pieces.join(''));
      expect(chunks.length).toBeGreaterThan(1); // read as it came, not at the end
      expect(Math.max(...readable)).toBe(1);
    });

    it('a connection cut mid-body errors with a NetworkError (not a clean end)', async () => {
      server = await startServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': '1000' });
        res.write('data: partial\n\n');
        setTimeout(() => req.socket.destroy(), 20);
      });
      agent = new Agent();
      const response = await request(server.url, { dispatcher: agent });
      const got: string[] = [];
      const error = await lastValueFrom(fromBody(response.body).pipe(map((chunk) => got.push(text([chunk]))))).catch(
        (caught: unknown) => caught,
      );
      expect(got.join('')).toBe('data: partial\n\n');
      expect(isNetworkError(error)).toBe(true);
    });

    it('an abort while a read waits on the socket errors with an AbortedError and closes the connection', async () => {
      let closed: Promise<void> | undefined;
      server = await startServer((req, res) => {
        closed = new Promise((resolve) => req.socket.once('close', () => resolve()));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n'); // then idle
      });
      agent = new Agent();
      const response = await request(server.url, { dispatcher: agent });
      const controller = new AbortController();
      const got: string[] = [];
      const seen = lastValueFrom(fromBody(response.body, { signal: controller.signal }).pipe(map((chunk) => got.push(text([chunk]))))).catch(
        (caught: unknown) => caught,
      );
      await delay(20); // the first piece read, the next read parked
      controller.abort();
      expect(isAbortedError(await seen)).toBe(true);
      expect(got).toEqual(['data: first\n\n']);
      await closed;
      expect(response.body.destroyed).toBe(true);
    });

    it('unsubscribing from an idle body closes the connection promptly', async () => {
      let closed: Promise<number> | undefined;
      server = await startServer((req, res) => {
        closed = new Promise((resolve) => req.socket.once('close', () => resolve(Date.now())));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n'); // then idle forever
      });
      agent = new Agent();
      const response = await request(server.url, { dispatcher: agent });
      const first = await lastValueFrom(fromBody(response.body).pipe(take(1)));
      const unsubscribedAt = Date.now();
      expect(text([first])).toBe('data: first\n\n');
      expect((await closed!) - unsubscribedAt).toBeLessThan(promptBound(300));
    });
  });
});
