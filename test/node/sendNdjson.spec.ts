import { concat, EMPTY, NEVER, Observable, of, throwError, timer, map } from 'rxjs';
import { RequestError, UpstreamStreamError } from '../../src/core/errors';
import { sendNdjson } from '../../src/node/sendNdjson';
import type { WriteOutcome } from '../../src/serve/WriteOutcome';
import { createDemandGate } from '../../src/core/createDemandGate';
import { promptBound } from '../helpers/promptBound';
import { controlledRequest, rawRequest } from '../helpers/rawRequest';
import { startServer, type TestServer } from '../helpers/startServer';
import { chunk, demandDrivenSource, sleep, waitFor } from '../helpers/streamSources';
import { expectErrorAfterCommit, expectErrorBeforeCommit, expectNdjsonAnswer, expectSuccessHeaders } from '../helpers/wireAssertions';

describe('sendNdjson', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  const serve = async (source: () => Observable<unknown>, onOutcome?: (o: WriteOutcome) => void): Promise<string> => {
    server = await startServer((_req, res) => void sendNdjson(res, source()).then(onOutcome));
    return server.url;
  };

  it('writes one line per value with the streaming headers (spec example, byte for byte)', async () => {
    const url = await serve(() => of(chunk(0, "I'm "), chunk(1, 'doing well'), chunk(2, ', thank you!', true)));
    const res = await rawRequest(url, { body: { messages: [] } });
    expect(expectNdjsonAnswer(res)).toHaveLength(3);
    expect(res.body).toBe(
      '{"message":{"role":"assistant","content":"I\'m "},"done":false,"index":0}\n' +
        '{"message":{"role":"assistant","content":"doing well"},"done":false,"index":1}\n' +
        '{"message":{"role":"assistant","content":", thank you!"},"done":true,"index":2}\n',
    );
  });

  it('an empty Flux (a filter that drops everything) is a 200 with the streaming headers and an empty body', async () => {
    const outcomes: WriteOutcome[] = [];
    const res = await rawRequest(await serve(() => EMPTY, (o) => outcomes.push(o)), { body: { messages: [] } });
    expectSuccessHeaders(res, '/chat/stream');
    expect(res.body).toBe('');
    expect(outcomes).toEqual([expect.objectContaining({ result: 'completed', status: 200, committed: true, values: 0, bytes: 0 })]);
  });

  it('writes each line when it is produced (no buffering until the end)', async () => {
    const url = await serve(() => concat(of(chunk(0, 'a')), timer(300).pipe(map(() => chunk(1, 'b', true)))));
    const res = await rawRequest(url);
    expect(res.pieces[0]?.text).toBe(`${JSON.stringify(chunk(0, 'a'))}\n`);
    expect((res.pieces.at(-1)?.at ?? 0) - (res.pieces[0]?.at ?? 0)).toBeGreaterThan(200);
  });

  it('answers an error before the first line with a real status and the error line', async () => {
    const res = await rawRequest(await serve(() => throwError(() => new RequestError('invalid_request', 'bad'))));
    expect(expectErrorBeforeCommit(res, '/chat/stream', 400, 'invalid_request').message).toBe('bad');
  });

  it('writes an error after the commit in-band and ends the response', async () => {
    const outcomes: WriteOutcome[] = [];
    const url = await serve(
      () => concat(of(chunk(0, 'a'), chunk(1, 'b')), throwError(() => new UpstreamStreamError('provider failed'))),
      (o) => outcomes.push(o),
    );
    const { chunks, error } = expectErrorAfterCommit(await rawRequest(url), '/chat/stream', 2);
    expect(chunks).toHaveLength(2);
    expect(error).toEqual({ message: 'provider failed', type: 'upstream_error', code: 'upstream_error' });
    expect(outcomes).toEqual([expect.objectContaining({ result: 'failed', status: 200, committed: true, values: 2 })]);
  });

  it('unsubscribes promptly when the client disconnects mid-stream (response close, not request close)', async () => {
    let unsubscribedAt = 0;
    const outcomes: WriteOutcome[] = [];
    const url = await serve(
      () => new Observable((s) => (s.next(chunk(0, 'a')), () => void (unsubscribedAt = performance.now()))),
      (o) => outcomes.push(o),
    );
    let abortedAt = 0;
    await rawRequest(url, { body: { messages: [] }, onPiece: () => ((abortedAt = performance.now()), 'abort') });
    await waitFor(() => unsubscribedAt > 0);
    expect(unsubscribedAt - abortedAt).toBeLessThan(promptBound(1000));
    expect(outcomes).toEqual([expect.objectContaining({ result: 'disconnected', committed: true })]);
  });

  it('pauses the demand gate while the client does not read, so production stays bounded', async () => {
    const demand = createDemandGate();
    const piece = { text: 'x'.repeat(16 * 1024) };
    const { source, produced, stopped } = demandDrivenSource(demand, piece);
    server = await startServer((_req, res) => void sendNdjson(res, source, { demand }));
    const client = controlledRequest(server.url, { paused: true });
    await client.response;
    await waitFor(() => !demand.isOpen);
    const first = produced();
    await sleep(300);
    expect(produced()).toBe(first);
    expect(first * 16 * 1024).toBeLessThan(64 * 1024 * 1024);
    client.resume();
    await waitFor(() => produced() > first + 10);
    client.destroy();
    await waitFor(() => stopped());
    expect(demand.isOpen).toBe(true);
  });

  it('settles when the signal aborts a silent stream', async () => {
    const controller = new AbortController();
    server = await startServer((_req, res) => void sendNdjson(res, NEVER, { signal: controller.signal }));
    const pending = rawRequest(server.url);
    await sleep(50);
    controller.abort(new RequestError('invalid_request', 'stop'));
    expectErrorBeforeCommit(await pending, '/chat/stream', 400);
  });
});
