/**
 * requestCompletion's `timeouts.body` (undici's deadline between body bytes), against a real server on 127.0.0.1 that
 * sends the headers and one event, then stalls: the `TimeoutError` names the deadline that passed and its value.
 */
import { lastValueFrom } from 'rxjs';
import { Agent } from 'undici';
import { isTimeoutError, type TimeoutError } from '../../src/core/errors';
import { requestCompletion } from '../../src/source/requestCompletion';
import { startServer, type TestServer } from '../helpers/startServer';

const REQUEST = { model: 'deepseek-chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('requestCompletion timeouts.body', () => {
  let server: TestServer | undefined;
  let agent: Agent | undefined;
  afterEach(async () => {
    await agent?.destroy();
    await server?.close();
  });

  it('a body that stalls mid-answer is a TimeoutError with the body deadline in force, not 0 ms', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}\n\n');
      // then nothing: the socket stays open
    });
    agent = new Agent();
    const started = Date.now();
    const error = await lastValueFrom(requestCompletion(REQUEST, { baseUrl: `${server.url}/v1`, dispatcher: agent, timeouts: { body: 300 } })).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isTimeoutError(error)).toBe(true);
    expect((error as TimeoutError).timeoutMs).toBe(300);
    expect((error as TimeoutError).message).toBe('upstream idle timeout after 300 ms');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
