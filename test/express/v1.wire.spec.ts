import { GATEWAY_KEY } from '../helpers/openAiGateway';
import { useOpenAiGateway } from '../helpers/useOpenAiGateway';

/**
 * The bytes of `POST /v1/chat/completions` (router in front of the emulator, heartbeat 100 ms): keep-alive comments
 * while the provider queues, the streaming headers, an in-band error chunk in OpenAI's shape as the last frame (no
 * `[DONE]`), and OpenAI's error body with the status (and `Retry-After`) before the first byte.
 */
describe('POST /v1/chat/completions on the wire', () => {
  const gateway = useOpenAiGateway('deepseek', 'deepseek-chat');

  const send = async (body: Record<string, unknown>) => {
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
    return { res, text: await res.text() };
  };

  it('writes keep-alive comments while the provider queues, then the chunks and [DONE] with the streaming headers', async () => {
    gateway.emulator.setScenario('queue=450;keep-alive=1000');
    const { res, text } = await send({ stream: true });
    expect(res.status).toBe(200);
    expect(Object.fromEntries(['content-type', 'cache-control', 'x-accel-buffering'].map((name) => [name, res.headers.get(name)]))).toEqual({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    expect(text.startsWith(': keep-alive\n\n')).toBe(true);
    const frames = text.split('\n\n').filter((frame) => frame !== '' && !frame.startsWith(':'));
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice('data: '.length)) as { object: string; choices: Array<{ finish_reason: string | null }> });
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('ends a cut stream with an error chunk in OpenAI’s shape, and no [DONE]', async () => {
    gateway.emulator.setScenario('eof-after=4');
    const { res, text } = await send({ stream: true });
    expect(res.status).toBe(200);
    expect(text).not.toMatch(/^data: \[DONE\]$/m);
    expect(text).not.toContain('"finish_reason":"');
    const last = text.trimEnd().split('\n\n').at(-1)!;
    expect(JSON.parse(last.slice('data: '.length))).toEqual({
      error: { message: expect.any(String), type: 'upstream_error', param: null, code: 'stream_incomplete' },
    });
  });

  it('answers an upstream refusal before the first byte with its status, and OpenAI’s error body', async () => {
    gateway.emulator.setScenario('status=429');
    for (const stream of [true, false]) {
      const { res, text } = await send({ stream });
      expect(res.status).toBe(429);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(text)).toEqual({ error: { message: expect.any(String), type: 'rate_limit_error', param: null, code: expect.any(String) } });
    }
  });

  it('GET /v1/models needs the key', async () => {
    const res = await fetch(`${gateway.url}/v1/models`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ error: { message: expect.any(String), type: 'authentication_error', param: null, code: 'unauthorized' } });
  });
});
