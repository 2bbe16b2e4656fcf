import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { rawRequest, type RawResponse } from '../helpers/rawRequest.js';
import { expectErrorAfterCommit, expectErrorBeforeCommit, expectSseAnswer, type Endpoint } from '../helpers/wireAssertions.js';
import { MySseController } from './MySseController.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';


const SHUTTING_DOWN = { message: 'the server is shutting down; retry the request', type: 'server_error', code: 'shutting_down' };
const ask = (model: string): unknown => ({ model, messages: [{ role: 'user', content: 'Tell me a long story.' }] });
const LONG = 'deepseek-chat#tokens=100000;pace=20';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 6 });
});
afterAll(async () => emulator.close());

/** The module's routes and a decorated handler; the client retries (as by default) and is created by the module. */
const start = (shutdownGraceMs: number): Promise<NestTestApp> =>
  startNestApp(
    {
      imports: [
        ChatfluxModule.forRoot({
          client: { provider: 'openai-compatible', baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat' },
          routes: true,
          shutdownGraceMs,
        }),
      ],
      controllers: [MySseController],
    },
    { bodyParser: false },
  );

/** Sends a request; `started` resolves with the first body piece (a committed stream), or the end of a response. */
const send = (url: string, model: string): { started: Promise<void>; done: Promise<RawResponse> } => {
  let onStart = (): void => undefined;
  const started = new Promise<void>((resolve) => (onStart = resolve));
  const done = rawRequest(url, { body: ask(model), onPiece: () => onStart() });
  void done.then(() => onStart());
  return { started, done };
};

describe('app.close() (what enableShutdownHooks runs on SIGTERM) ends streams gracefully', () => {
  it('streams still running after the grace period end with the in-band shutting_down frame, a pending /chat/json with 503', async () => {
    const nest = await start(300);
    const before = emulator.requests.length;
    const streams = (['/chat/stream', '/chat/sse', '/my/sse'] as const).map((path) => send(nest.url + path, LONG));
    const json = send(`${nest.url}/chat/json`, LONG);
    await Promise.all(streams.map((stream) => stream.started));
    await emulator.waitForRequest(() => emulator.requests.length >= before + 4);

    const closing = performance.now();
    await nest.close();
    expect(performance.now() - closing).toBeGreaterThanOrEqual(280);

    const [ndjson, sse, mine] = await Promise.all(streams.map((stream) => stream.done));
    expect(expectErrorAfterCommit(ndjson as RawResponse, '/chat/stream', 1).error).toEqual(SHUTTING_DOWN);
    for (const res of [sse, mine] as RawResponse[]) expect(expectErrorAfterCommit(res, '/chat/sse', 1).error).toEqual(SHUTTING_DOWN);
    const answer = await json.done;
    expect(expectErrorBeforeCommit(answer, '/chat/json', 503)).toEqual(SHUTTING_DOWN);
    expect(answer.headers['retry-after']).toBe('1');

    // Their upstream requests were aborted, not left to run.
    const upstream = emulator.requests.slice(before);
    await Promise.all(upstream.map((request) => request.closed));
    expect(upstream.map((request) => request.closedEarly)).toEqual([true, true, true, true]);
  });

  it('a stream that ends within the grace period completes normally, and close() waits for it', async () => {
    const nest = await start(10_000);
    const stream = send(`${nest.url}/chat/sse`, 'deepseek-chat#tokens=40;pace=20');
    const mine = send(`${nest.url}/my/sse`, 'deepseek-chat#tokens=40;pace=20');
    await Promise.all([stream.started, mine.started]);
    const closing = performance.now();
    await nest.close();
    expect(performance.now() - closing).toBeLessThan(5_000);
    expectSseAnswer(await stream.done);
    expectSseAnswer(await mine.done);
  });

  it.each(['/chat/json', '/chat/stream', '/chat/sse'] as Endpoint[])(
    '%s: a request arriving during the grace period is refused with 503 shutting_down and Retry-After',
    async (endpoint) => {
      const nest = await start(1_000);
      const running = send(`${nest.url}/chat/stream`, LONG);
      await running.started;
      const closed = nest.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = await rawRequest(nest.url + endpoint, { body: ask('deepseek-chat') });
      expect(expectErrorBeforeCommit(refused, endpoint, 503, 'shutting_down')).toEqual(SHUTTING_DOWN);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers['connection']).toBe('close');
      await closed;
      expect(expectErrorAfterCommit(await running.done, '/chat/stream', 1).error.code).toBe('shutting_down');
    },
  );
});
