import type { IncomingMessage } from 'node:http';
import { getEventListeners } from 'node:events';
import { inspect } from 'node:util';
import { lastValueFrom, take, toArray } from 'rxjs';
import { Agent } from 'undici';
import {
  ConfigError,
  isAbortedError,
  isNetworkError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamHttpError,
  type NetworkError,
  type UpstreamHttpError,
} from '../../src/core/errors';
import { toErrorResponse } from '../../src/core/toErrorResponse';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { createDemandGate } from '../../src/core/createDemandGate';
import { requestCompletion, type RequestCompletionConfig } from '../../src/source/requestCompletion';
import { promptBound } from '../helpers/promptBound';
import { startServer, type TestServer } from '../helpers/startServer';

const KEY = 'sk-test-0123456789abcdef';
const REQUEST = { model: 'deepseek-chat', messages: [{ role: 'user' as const, content: 'hi' }] };
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const readJson = (req: IncomingMessage): Promise<unknown> =>
  new Promise((resolve) => {
    let data = '';
    req.on('data', (chunk: Buffer) => (data += chunk.toString()));
    req.on('end', () => resolve(JSON.parse(data)));
  });
const failure = (config: RequestCompletionConfig): Promise<unknown> =>
  lastValueFrom(requestCompletion(REQUEST, config)).then(
    () => {
      throw new Error('expected an error');
    },
    (error: unknown) => error,
  );

describe('requestCompletion', () => {
  let server: TestServer;
  let agent: Agent;
  let socketClosedAt: Promise<number>;
  const config = (extra: Partial<RequestCompletionConfig> = {}): RequestCompletionConfig => ({
    baseUrl: `${server.url}/v1`,
    apiKey: KEY,
    dispatcher: agent,
    ...extra,
  });
  const serve = async (
    handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void,
  ): Promise<void> => {
    server = await startServer((req, res) => {
      socketClosedAt = new Promise((resolve) => req.socket.once('close', () => resolve(Date.now())));
      handler(req, res);
    });
  };
  beforeEach(() => {
    agent = new Agent({ connect: { timeout: 2000 } });
  });
  afterEach(async () => {
    await agent.destroy();
    await server?.close();
  });

  it('POSTs the request with stream, include_usage, the bearer key and Accept, and emits the body bytes', async () => {
    let seen: { url?: string; method?: string; headers?: IncomingMessage['headers']; body?: unknown } = {};
    await serve(async (req, res) => {
      seen = { url: req.url, method: req.method, headers: req.headers, body: await readJson(req) };
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.write('data: {"a":1}\n\n');
      res.end('data: [DONE]\n\n');
    });
    const out = await lastValueFrom(
      requestCompletion(REQUEST, config({ headers: { 'x-extra': 'yes' } })).pipe(toArray()),
    );
    expect(Buffer.concat(out).toString()).toBe('data: {"a":1}\n\ndata: [DONE]\n\n');
    expect(seen.url).toBe('/v1/chat/completions');
    expect(seen.method).toBe('POST');
    expect(seen.headers?.authorization).toBe(`Bearer ${KEY}`);
    expect(seen.headers?.accept).toBe('text/event-stream');
    expect(seen.headers?.['content-type']).toBe('application/json');
    expect(seen.headers?.['x-extra']).toBe('yes');
    expect(seen.body).toEqual({ ...REQUEST, stream: true, stream_options: { include_usage: true } });
  });

  it('refuses a config without an http(s) baseUrl at the call, with a ConfigError saying how to call it', () => {
    for (const config of [{}, { baseUrl: '' }, { baseUrl: 'api.deepseek.com' }, undefined, null]) {
      const call = (): unknown => requestCompletion(REQUEST, config as unknown as RequestCompletionConfig);
      expect(call).toThrow(ConfigError);
      expect(call).toThrow(/^requestCompletion: .*baseUrl.*e\.g\. requestCompletion\(request, \{ baseUrl: 'https:\/\/api\.deepseek\.com', apiKey \}\)/);
    }
  });

  it('is cold: each subscription sends its own request', async () => {
    await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: [DONE]\n\n');
    });
    const source = requestCompletion(REQUEST, config());
    expect(server.requests).toHaveLength(0);
    await lastValueFrom(source);
    await lastValueFrom(source);
    expect(server.requests).toHaveLength(2);
  });

  it('unsubscribing mid-stream closes the connection promptly', async () => {
    await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let n = 0;
      const timer = setInterval(() => res.write(`data: {"n":${n++}}\n\n`), 5);
      res.on('close', () => clearInterval(timer));
    });
    await lastValueFrom(requestCompletion(REQUEST, config()).pipe(take(3)));
    const unsubscribedAt = Date.now();
    expect((await socketClosedAt) - unsubscribedAt).toBeLessThan(promptBound(300));
  });

  it('unsubscribing while the stream is idle closes the connection promptly', async () => {
    await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keep-alive\n\n'); // then nothing
    });
    await lastValueFrom(requestCompletion(REQUEST, config()).pipe(take(1)));
    const unsubscribedAt = Date.now();
    expect((await socketClosedAt) - unsubscribedAt).toBeLessThan(promptBound(300));
  });

  it('unsubscribing before the headers arrive aborts the request', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    await serve(() => arrived()); // never answers
    const subscription = requestCompletion(REQUEST, config()).subscribe({ error: () => undefined });
    await requestArrived;
    subscription.unsubscribe();
    const unsubscribedAt = Date.now();
    expect((await socketClosedAt) - unsubscribedAt).toBeLessThan(promptBound(300));
  });

  describe('keep-alive after [DONE]', () => {
    const frame = (n: number, eol = '\n'): string =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${n}"}}]}${eol}${eol}`;
    const chunks = (extra: Partial<RequestCompletionConfig> = {}) =>
      lastValueFrom(requestCompletion(REQUEST, config(extra)).pipe(parseSse(), decodeChunk(), toArray()));
    /** Waits (bounded) until the agent has no request running: a drained body has given its connection back. */
    const agentIdle = async (): Promise<void> => {
      const busy = (): boolean =>
        (Object.values(agent.stats) as Array<{ running: number; pending: number }>).some(
          (s) => s.running > 0 || s.pending > 0,
        );
      for (let i = 0; i < 100 && busy(); i += 1) await delay(20);
    };

    it.each([
      ['LF', '\n'],
      ['CRLF', '\r\n'],
    ])(
      'a body that ends a little after [DONE] (%s) is drained, not destroyed: 3 requests, 1 connection',
      async (_name, eol) => {
        let connections = 0;
        await serve((req, res) => {
          req.resume();
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(frame(1, eol) + frame(2, eol) + `data: [DONE]${eol}${eol}`);
          setTimeout(() => res.end(), 20); // the end of the chunked body comes in a later read
        });
        server.server.on('connection', () => (connections += 1));
        for (let i = 0; i < 3; i += 1) {
          expect(await chunks()).toHaveLength(2);
          await agentIdle();
        }
        expect(server.requests).toHaveLength(3);
        expect(connections).toBe(1);
      },
    );

    it('unsubscribing mid-stream through decodeChunk still closes the connection promptly', async () => {
      await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let n = 0;
        const timer = setInterval(() => res.write(frame(n++)), 5);
        res.on('close', () => clearInterval(timer));
      });
      await lastValueFrom(requestCompletion(REQUEST, config()).pipe(parseSse(), decodeChunk(), take(2)));
      const unsubscribedAt = Date.now();
      expect((await socketClosedAt) - unsubscribedAt).toBeLessThan(promptBound(300));
    });

    it('a body that does not end after [DONE] is given up after about a second', async () => {
      await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(frame(1) + 'data: [DONE]\n\n'); // then nothing, and no end
      });
      expect(await chunks()).toHaveLength(1);
      const doneAt = Date.now();
      const waited = (await socketClosedAt) - doneAt;
      expect(waited).toBeGreaterThan(700);
      expect(waited).toBeLessThan(promptBound(3000));
    });

    it('a body that goes on past 16 KiB after [DONE] is destroyed without waiting for the deadline', async () => {
      await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(frame(1) + 'data: [DONE]\n\n');
        const timer = setInterval(() => res.write(`: ${'x'.repeat(8 * 1024)}\n\n`), 5);
        res.on('close', () => clearInterval(timer));
      });
      expect(await chunks()).toHaveLength(1);
      const doneAt = Date.now();
      expect((await socketClosedAt) - doneAt).toBeLessThan(promptBound(700));
    });
  });

  it('an outer AbortSignal aborts the request with an AbortedError, and its listener is removed on teardown', async () => {
    await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keep-alive\n\n');
    });
    const controller = new AbortController();
    const seen = failure(config({ signal: controller.signal }));
    await delay(50);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(isAbortedError(await seen)).toBe(true);
    await socketClosedAt;

    const other = new AbortController();
    await lastValueFrom(requestCompletion(REQUEST, config({ signal: other.signal })).pipe(take(1)));
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });

  it('an already aborted signal sends nothing', async () => {
    await serve((_req, res) => res.end());
    const error = await failure(config({ signal: AbortSignal.abort() }));
    expect(isAbortedError(error)).toBe(true);
    await delay(20);
    expect(server.requests).toHaveLength(0);
  });

  describe('non-2xx answers become UpstreamHttpError', () => {
    const answer = (
      status: number,
      body: string,
      headers: Record<string, string> = { 'content-type': 'application/json' },
    ) =>
      serve((_req, res) => {
        res.writeHead(status, headers);
        res.end(body);
      });

    it('DeepSeek 402 {error:{message,type,param,code}}', async () => {
      await answer(
        402,
        JSON.stringify({
          error: { message: 'Insufficient Balance', type: 'unknown_error', param: null, code: 'invalid_request_error' },
        }),
      );
      const error = (await failure(config())) as UpstreamHttpError;
      expect(isUpstreamHttpError(error)).toBe(true);
      expect(error.status).toBe(402);
      expect(error.message).toBe('upstream answered HTTP 402: Insufficient Balance');
      expect(error.upstreamType).toBe('unknown_error');
      expect(error.upstreamCode).toBe('invalid_request_error');
      expect(error.retryAfterMs).toBeUndefined();
    });

    it('Moonshot 429 engine_overloaded_error with "try again after N seconds" in the text', async () => {
      await answer(
        429,
        JSON.stringify({
          error: {
            message: 'The engine is currently overloaded, please try again after 3 seconds',
            type: 'engine_overloaded_error',
          },
        }),
      );
      const error = (await failure(config())) as UpstreamHttpError;
      expect(error.status).toBe(429);
      expect(error.upstreamType).toBe('engine_overloaded_error');
      expect(error.message).toContain('currently overloaded');
      expect(error.retryAfterMs).toBe(3000);
    });

    it('an HTML 502 page from a proxy: its title as the message, the body truncated', async () => {
      const page = `<html><head><title>502 Bad Gateway</title></head><body>${'x'.repeat(5000)}</body></html>`;
      await answer(502, page, { 'content-type': 'text/html' });
      const error = (await failure(config())) as UpstreamHttpError;
      expect(error.status).toBe(502);
      expect(error.message).toBe('upstream answered HTTP 502: 502 Bad Gateway');
      expect(error.body!.length).toBeLessThan(1100);
      expect(error.body).toContain('<title>502 Bad Gateway</title>');
    });

    it('Retry-After in seconds, as an HTTP date, and retry-after-ms', async () => {
      await answer(503, '{"error":{"message":"busy"}}', { 'content-type': 'application/json', 'retry-after': '7' });
      expect(((await failure(config())) as UpstreamHttpError).retryAfterMs).toBe(7000);
      await server.close();
      await answer(503, 'busy', { 'retry-after': new Date(Date.now() + 30_000).toUTCString() });
      const fromDate = ((await failure(config())) as UpstreamHttpError).retryAfterMs!;
      expect(fromDate).toBeGreaterThan(25_000);
      expect(fromDate).toBeLessThanOrEqual(30_000);
      await server.close();
      await answer(429, 'slow down', { 'retry-after-ms': '1500', 'retry-after': '9' });
      expect(((await failure(config())) as UpstreamHttpError).retryAfterMs).toBe(1500);
    });

    it('a body that echoes the API key never leaks it', async () => {
      await answer(
        401,
        JSON.stringify({
          error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_authentication_error' },
        }),
      );
      const error = (await failure(config())) as UpstreamHttpError;
      expect(error.status).toBe(401);
      for (const view of [error.message, String(error), JSON.stringify(error), inspect(error), error.body ?? ''])
        expect(view).not.toContain(KEY);
    });

    it('an error body that stalls is cut at timeouts.errorBody: the UpstreamHttpError comes from what arrived', async () => {
      await serve((_req, res) => {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' });
        res.write('{"error":{"message":"overloaded"'); // then nothing, and no end
      });
      const startedAt = Date.now();
      const error = (await failure(config({ timeouts: { errorBody: 300 } }))) as UpstreamHttpError;
      const elapsed = Date.now() - startedAt;
      expect(isUpstreamHttpError(error)).toBe(true);
      expect(error.status).toBe(503);
      expect(error.retryAfterMs).toBe(2000);
      expect(error.body).toContain('overloaded');
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(2000);
      await socketClosedAt;
    });

    it('reads at most maxErrorBodyBytes of an endless error body, then releases the connection', async () => {
      await serve((_req, res) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('y'.repeat(16 * 1024)), 1);
        res.on('close', () => clearInterval(timer));
      });
      const error = (await failure(config({ maxErrorBodyBytes: 32 * 1024 }))) as UpstreamHttpError;
      expect(error.status).toBe(500);
      await socketClosedAt;
    });
  });

  it('a 2xx that is not text/event-stream is a StreamProtocolError with the JSON error message', async () => {
    await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: 'stream not supported for this model', type: 'invalid_request_error' } }),
      );
    });
    const error = await failure(config());
    expect(isStreamProtocolError(error)).toBe(true);
    expect((error as { code: string }).code).toBe('unexpected_content_type');
    expect((error as Error).message).toContain('application/json');
    expect((error as Error).message).toContain('stream not supported for this model');
  });

  it('a refused connection is a NetworkError with the cause', async () => {
    await serve((_req, res) => res.end());
    const url = server.url;
    await server.close();
    const error = await failure({ baseUrl: url, apiKey: KEY, dispatcher: agent });
    expect(isNetworkError(error)).toBe(true);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).cause).toBeDefined();
  });

  it('a reset before the response is a NetworkError', async () => {
    await serve((req) => req.socket.destroy());
    expect(isNetworkError(await failure(config()))).toBe(true);
  });

  it('a reset after the first chunk: the chunk, then a NetworkError', async () => {
    await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n', () => setTimeout(() => req.socket.destroy(), 20));
    });
    const got: string[] = [];
    const error = await new Promise((resolve) =>
      requestCompletion(REQUEST, config()).subscribe({
        next: (chunk) => got.push(Buffer.from(chunk).toString()),
        error: resolve,
      }),
    );
    expect(got.join('')).toBe('data: {"n":1}\n\n');
    expect(isNetworkError(error)).toBe(true);
  });

  it('says whether the provider was unreachable or the answer was cut: midResponse, and the wire message', async () => {
    await serve((req) => req.socket.destroy());
    const before = (await failure(config())) as NetworkError;
    expect(before.midResponse).toBe(false);
    expect(toErrorResponse(before).body.message).toBe('the upstream provider could not be reached');
    await server.close();
    await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n', () => setTimeout(() => req.socket.destroy(), 20));
    });
    const cut = (await failure(config())) as NetworkError;
    expect(isNetworkError(cut)).toBe(true);
    expect(cut.midResponse).toBe(true);
    expect(cut.message).toMatch(/^upstream connection cut mid-answer/);
    expect(toErrorResponse(cut).body).toEqual({
      message: 'the connection to the upstream provider was cut mid-answer',
      type: 'upstream_error',
      code: 'network',
    });
  });

  it('no headers within the headers timeout is a TimeoutError("headers")', async () => {
    await serve(() => undefined);
    const error = await failure(config({ timeouts: { headers: 200 } }));
    expect(isTimeoutError(error)).toBe(true);
    expect(error).toMatchObject({ phase: 'headers', timeoutMs: 200 });
    await socketClosedAt;
  });

  it('backpressure: while the demand gate is closed the socket is not read and the server stops writing', async () => {
    const TOTAL = 32 * 1024 * 1024;
    const piece = Buffer.alloc(64 * 1024, 'a');
    let written = 0;
    let blocked = 0;
    await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = (): void => {
        while (written < TOTAL) {
          written += piece.length;
          if (!res.write(piece)) {
            blocked += 1;
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const demand = createDemandGate();
    let received = 0;
    let paused = false;
    const done = new Promise<void>((resolve, reject) =>
      requestCompletion(REQUEST, config({ demand })).subscribe({
        next: (chunk) => {
          received += chunk.byteLength;
          if (!paused && received >= 256 * 1024) {
            paused = true;
            demand.pause();
          }
        },
        error: reject,
        complete: resolve,
      }),
    );
    await delay(300);
    const receivedWhilePaused = received;
    const writtenAt1 = written;
    await delay(300);
    expect(received).toBe(receivedWhilePaused);
    expect(written).toBe(writtenAt1); // the server is blocked on 'drain': nothing more is read from the socket
    expect(blocked).toBeGreaterThan(0);
    expect(written).toBeLessThan(TOTAL / 2); // bounded by socket buffers, not by the answer
    demand.resume();
    await done;
    expect(received).toBe(TOTAL);
  });
});
