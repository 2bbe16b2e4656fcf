import { NEVER, Observable, of, throwError, timer, map } from 'rxjs';
import { RequestError, TimeoutError, UpstreamHttpError } from '../../src/core/errors';
import { sendJson } from '../../src/node/sendJson';
import type { WriteOutcome } from '../../src/serve/WriteOutcome';
import { rawRequest } from '../helpers/rawRequest';
import { startServer, type TestServer } from '../helpers/startServer';
import { expectErrorBeforeCommit, expectSuccessHeaders } from '../helpers/wireAssertions';
import { waitFor } from '../helpers/streamSources';

const OUTPUT = { id: 'cmpl-1', model: 'm', created: 1, message: { role: 'assistant', content: '你好 👋' }, done: true };

describe('sendJson', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  const serve = async (source: () => Observable<unknown>, onOutcome?: (o: WriteOutcome) => void): Promise<string> => {
    server = await startServer((_req, res) => void sendJson(res, source(), { secrets: ['sk-secret-key-1234'] }).then(onOutcome));
    return server.url;
  };

  it('writes the one value as JSON with Content-Type and Content-Length', async () => {
    const outcomes: WriteOutcome[] = [];
    const res = await rawRequest(await serve(() => of(OUTPUT), (o) => outcomes.push(o)));
    expectSuccessHeaders(res, '/chat/json');
    expect(res.body).toBe(JSON.stringify(OUTPUT));
    expect(outcomes).toEqual([expect.objectContaining({ result: 'completed', status: 200, committed: true, values: 1 })]);
    // counted as sent: UTF-8 bytes (CJK, emoji), the Content-Length
    expect(outcomes[0]!.bytes).toBe(Buffer.byteLength(JSON.stringify(OUTPUT)));
    expect(res.headers['content-length']).toBe(String(outcomes[0]!.bytes));
  });

  it.each([
    ['a request error', new RequestError('invalid_request', 'messages: too small'), 400, 'invalid_request'],
    ['a bad key', new RequestError('unauthorized', 'missing key'), 401, 'unauthorized'],
    ['a too large body', new RequestError('payload_too_large', 'too big'), 413, 'payload_too_large'],
    ['a wrong content type', new RequestError('unsupported_media_type', 'json please'), 415, 'unsupported_media_type'],
    ['an upstream 500', new UpstreamHttpError(500, 'boom'), 502, 'upstream_http'],
    ['an upstream timeout', new TimeoutError('first_chunk', 100), 504, 'timeout'],
  ])('answers %s with its status and the JSON error body', async (_name, error, status, code) => {
    const res = await rawRequest(await serve(() => throwError(() => error)));
    expectErrorBeforeCommit(res, '/chat/json', status, code);
    expect(res.headers['www-authenticate']).toBe(status === 401 ? 'Bearer' : undefined);
  });

  it('passes an upstream 429 on with Retry-After in whole seconds', async () => {
    const res = await rawRequest(await serve(() => throwError(() => new UpstreamHttpError(429, 'slow down', { retryAfterMs: 1500 }))));
    expectErrorBeforeCommit(res, '/chat/json', 429);
    expect(res.headers['retry-after']).toBe('2');
  });

  it('gets a real status for an error after the value (the body is written at completion)', async () => {
    const res = await rawRequest(await serve(() => new Observable((s) => (s.next(OUTPUT), s.error(new UpstreamHttpError(503, 'late'))))));
    expectErrorBeforeCommit(res, '/chat/json', 502);
  });

  it('never leaks a configured secret or an unknown error message', async () => {
    const leaky = await rawRequest(await serve(() => throwError(() => new UpstreamHttpError(500, 'key sk-secret-key-1234 refused'))));
    expect(leaky.body).not.toContain('sk-secret-key-1234');
    await server?.close();
    const unknown = await rawRequest(await serve(() => throwError(() => new Error('at /home/me/secret.ts:12'))));
    expect(expectErrorBeforeCommit(unknown, '/chat/json', 500).message).toBe('internal server error');
  });

  it('refuses a Mono that completes empty or emits twice (500)', async () => {
    expectErrorBeforeCommit(await rawRequest(await serve(() => of())), '/chat/json', 500);
    await server?.close();
    expectErrorBeforeCommit(await rawRequest(await serve(() => of(OUTPUT, OUTPUT))), '/chat/json', 500);
  });

  it('unsubscribes when the client goes away before the answer', async () => {
    let unsubscribed = false;
    const outcomes: WriteOutcome[] = [];
    const url = await serve(
      () => new Observable(() => () => void (unsubscribed = true)),
      (o) => outcomes.push(o),
    );
    const controller = new AbortController();
    const pending = rawRequest(url, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await pending;
    await waitFor(() => unsubscribed);
    expect(outcomes).toEqual([expect.objectContaining({ result: 'disconnected', status: 0, committed: false })]);
  });

  it('answers 503 shutting_down with Retry-After when the signal aborts without a reason (the client is still there)', async () => {
    const controller = new AbortController();
    const outcomes: WriteOutcome[] = [];
    server = await startServer((_req, res) => {
      void sendJson(res, NEVER, { signal: controller.signal }).then((o) => outcomes.push(o));
      timer(20).subscribe(() => controller.abort());
    });
    const res = await rawRequest(server.url);
    expect(expectErrorBeforeCommit(res, '/chat/json', 503, 'shutting_down').type).toBe('server_error');
    expect(res.headers['retry-after']).toBe('1');
    expect(outcomes).toEqual([expect.objectContaining({ result: 'failed', status: 503, committed: false })]);
  });

  it('ends with the error status when the abort signal fires first', async () => {
    const controller = new AbortController();
    server = await startServer((_req, res) => {
      void sendJson(res, NEVER.pipe(map(() => OUTPUT)), { signal: controller.signal });
      timer(20).subscribe(() => controller.abort(new TimeoutError('total', 20)));
    });
    expectErrorBeforeCommit(await rawRequest(server.url), '/chat/json', 504, 'timeout');
  });
});
