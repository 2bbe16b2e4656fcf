/** `toResponse` served by Hono on @hono/node-server: the status is decided by the first event; heartbeats; headers. */
import { concat, NEVER, of, throwError, timer, map, Subject } from 'rxjs';
import { RequestError, UpstreamHttpError } from '../../src/core/errors';
import { createChatClient } from '../../src/client/createChatClient';
import { toResponse } from '../../src/web/toResponse';
import { NDJSON_WIRE } from '../../src/wire/NDJSON_WIRE';
import { rawRequest } from '../helpers/rawRequest';
import { startHonoChat, type HonoChat } from './startHonoChat';

let hono: HonoChat;
let unsubscribed = 0;
const tracked = new Subject<number>();

beforeAll(async () => {
  const client = createChatClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', model: 'm', retry: false });
  hono = await startHonoChat({ client }, (app) => {
    app.get('/before', () => toResponse(throwError(() => new RequestError('invalid_request', 'bad things')), 'sse'));
    app.get('/upstream-429', () =>
      toResponse(throwError(() => new UpstreamHttpError(429, 'slow down', { retryAfterMs: 4000 })), 'json'),
    );
    app.get('/after', () => toResponse(concat(of({ n: 1 }), throwError(() => new RequestError('invalid_request', 'late'))), 'ndjson'));
    app.get('/ping', () => toResponse(concat(timer(250).pipe(map(() => ({ n: 1 })))), 'sse', { heartbeatMs: 100 }));
    app.get('/empty', () => toResponse(of(), 'sse'));
    app.get('/forever', () =>
      toResponse(concat(of({ n: 1 }), NEVER), 'sse', { heartbeatMs: 0, onEnd: () => tracked.next((unsubscribed += 1)) }),
    );
  });
});
afterAll(async () => {
  await hono.close();
});

it('an error before any value gives a real status and the endpoint’s error body', async () => {
  const res = await rawRequest(`${hono.url}/before`);
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toBe('text/event-stream');
  expect(res.body).toBe('event: error\ndata: {"message":"bad things","type":"invalid_request_error","code":"invalid_request"}\n\ndata: [DONE]\n\n');
});

it('an upstream 429 before the commit keeps its Retry-After', async () => {
  const res = await rawRequest(`${hono.url}/upstream-429`);
  expect(res.status).toBe(429);
  expect(res.headers['retry-after']).toBe('4');
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
});

it('an error after the first value is the in-band error frame of a 200', async () => {
  const res = await rawRequest(`${hono.url}/after`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe(NDJSON_WIRE.headers['Content-Type']);
  const lines = res.body.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines[0]).toEqual({ n: 1 });
  expect(lines[1]).toMatchObject({ error: { message: 'late', code: 'invalid_request' } });
});

it('SSE: `: ping` after the configured silence, before the first value', async () => {
  const res = await rawRequest(`${hono.url}/ping`);
  expect(res.status).toBe(200);
  expect(res.body).toBe(': ping\n\n: ping\n\ndata: {"n":1}\n\ndata: [DONE]\n\n');
});

it('an empty stream is still a 200 of its format, with its trailer', async () => {
  const res = await rawRequest(`${hono.url}/empty`);
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('no-cache, no-transform');
  expect(res.body).toBe('data: [DONE]\n\n');
});

it('a client that leaves ends the subscription (onEnd: disconnected)', async () => {
  const ended = new Promise((resolve) => tracked.subscribe(resolve));
  await rawRequest(`${hono.url}/forever`, { onPiece: () => 'abort' });
  await expect(ended).resolves.toBe(1);
});
