import { startEmulator, type Emulator, type EmulatorConfig } from '../../src/testing/startEmulator';
import { dataOf, rawPost, type RawPostOptions } from './helpers/rawPost';

const body = { model: 'deepseek-chat', stream: true, messages: [{ role: 'user', content: '你好，世界 🌏' }] };

describe('startEmulator faults', () => {
  let emulator: Emulator | undefined;
  const start = async (config: EmulatorConfig = {}): Promise<Emulator> =>
    (emulator = await startEmulator({ seed: 3, ...config }));
  const post = (scenario: string, options: RawPostOptions = {}, payload: unknown = body) =>
    rawPost(emulator!.url, payload, { ...options, headers: { 'x-emulator-scenario': scenario, ...options.headers } });
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  describe('HTTP errors before any stream byte', () => {
    it('deepseek: any status with {error:{message,type,param,code}} and never Retry-After', async () => {
      await start({ dialect: 'deepseek' });
      for (const status of [400, 401, 402, 422, 429, 500, 503]) {
        const res = await post(`status=${status};retry-after=2`);
        expect(res.status).toBe(status);
        expect(res.headers['content-type']).toBe('application/json');
        expect(res.headers['retry-after']).toBeUndefined();
        expect(res.headers['retry-after-ms']).toBeUndefined();
        const { error } = JSON.parse(res.body.toString());
        expect(Object.keys(error)).toEqual(['message', 'type', 'param', 'code']);
        expect(error.param).toBeNull();
      }
    });

    it('moonshot: {error:{message,type}} with Moonshot types, the wait written into the message', async () => {
      await start({ dialect: 'moonshot' });
      const res = await post('status=429;retry-after=1');
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(JSON.parse(res.body.toString())).toEqual({
        error: {
          message: 'Your account request reached organization max RPM: 3, please try again after 1 seconds',
          type: 'rate_limit_reached_error',
        },
      });
      const types = [];
      for (const status of [400, 401, 403, 404, 500, 503])
        types.push(JSON.parse((await post(`status=${status}`)).body.toString()).error.type);
      expect(types).toEqual([
        'invalid_request_error',
        'invalid_authentication_error',
        'permission_denied_error',
        'resource_not_found_error',
        'server_error',
        'service_unavailable_error', // PROVIDERS.md documents no Moonshot 503 (its overload is a 429): neutral
      ]);
      const overloaded = await post(
        'status=429;error-type=engine_overloaded_error;error-message=The engine is currently overloaded',
      );
      expect(JSON.parse(overloaded.body.toString())).toEqual({
        error: { message: 'The engine is currently overloaded', type: 'engine_overloaded_error' },
      });
    });

    it('moonshot "overloaded" is a 429 with engine_overloaded_error; deepseek and openai answer 503', async () => {
      await start({ dialect: 'moonshot' });
      const res = await post('overloaded');
      expect(res.status).toBe(429);
      expect(JSON.parse(res.body.toString())).toEqual({
        error: {
          message: 'The engine is currently overloaded, please try again later',
          type: 'engine_overloaded_error',
        },
      });
      expect(JSON.parse((await post('overloaded;retry-after=1')).body.toString()).error.message).toBe(
        'The engine is currently overloaded, please try again after 1 seconds',
      );
      for (const dialect of ['deepseek', 'openai'] as const) {
        await emulator!.close();
        await start({ dialect });
        const busy = await post('overloaded');
        expect(busy.status).toBe(503);
        expect(JSON.parse(busy.body.toString())).toEqual({
          error: {
            message: 'Service is too busy, please try again later',
            type: 'service_unavailable_error',
            param: null,
            code: 'server_overloaded',
          },
        });
      }
    });

    it('a status PROVIDERS.md does not document gets a neutral body for that status, never another status’s', async () => {
      await start({ dialect: 'moonshot' });
      const moonshot = async (status: number): Promise<unknown> =>
        JSON.parse((await post(`status=${status}`)).body.toString());
      expect(await moonshot(402)).toEqual({ error: { message: 'Payment Required', type: 'payment_required_error' } });
      expect(await moonshot(503)).toEqual({
        error: { message: 'Service Unavailable', type: 'service_unavailable_error' },
      });
      expect(await moonshot(502)).toEqual({ error: { message: 'Bad Gateway', type: 'bad_gateway_error' } });
      await emulator!.close();
      await start({ dialect: 'deepseek' });
      const deepseek = async (status: number): Promise<unknown> =>
        JSON.parse((await post(`status=${status}`)).body.toString());
      expect(await deepseek(403)).toEqual({
        error: { message: 'Forbidden', type: 'forbidden_error', param: null, code: null },
      });
      expect(await deepseek(502)).toEqual({
        error: { message: 'Bad Gateway', type: 'bad_gateway_error', param: null, code: null },
      });
      expect(await deepseek(599)).toEqual({
        error: { message: 'HTTP 599', type: 'http_599_error', param: null, code: null },
      });
      // The documented ones keep the provider's text (DeepSeek 402: insufficient balance).
      expect(await deepseek(402)).toEqual({
        error: { message: 'Insufficient Balance', type: 'unknown_error', param: null, code: 'invalid_request_error' },
      });
    });

    it('openai: Retry-After and retry-after-ms when asked', async () => {
      await start({ dialect: 'openai' });
      const res = await post('status=429;retry-after=2;retry-after-ms=1500');
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.headers['retry-after-ms']).toBe('1500');
    });

    it('fail-first=2:503 fails two attempts of the same request, then answers; resetAttempts restarts the count', async () => {
      await start();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await post('fail-first=2:503')).status);
      expect(statuses).toEqual([503, 503, 200]);
      const other = { ...body, messages: [{ role: 'user', content: 'another question' }] };
      expect((await post('fail-first=2:503', {}, other)).status).toBe(503);
      emulator!.resetAttempts();
      expect((await post('fail-first=2:503')).status).toBe(503);
    });

    it('html-status=502 and html-200 answer with an nginx page', async () => {
      await start();
      const res = await post('html-status=502');
      expect(res.status).toBe(502);
      expect(res.headers['content-type']).toBe('text/html');
      expect(res.body.toString()).toContain('<center><h1>502 Bad Gateway</h1></center>');
      expect((await post('html-200')).status).toBe(200);
      expect((await post('html-200')).body.toString()).toContain('<html>');
    });

    it('reset-before-headers resets the connection with no response', async () => {
      await start();
      const res = await post('reset-before-headers');
      expect(res.status).toBe(0);
      expect(res.error?.code).toBe('ECONNRESET');
    });

    it('a bad scenario is a 400 in the dialect shape that names the item', async () => {
      await start({ dialect: 'moonshot' });
      const res = await post('explode');
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body.toString()).error.message).toMatch(/unknown item "explode"/);
    });
  });

  describe('the scenario can be chosen by model suffix and programmatically', () => {
    it('reads "#scenario" after the model name and answers with the bare model name', async () => {
      await start();
      expect((await rawPost(emulator!.url, { ...body, model: 'deepseek-chat#status=503' })).status).toBe(503);
      const ok = await rawPost(emulator!.url, { ...body, model: 'deepseek-chat#eof-after=2' });
      const data = dataOf(ok.body.toString());
      expect(data).toHaveLength(2);
      expect(JSON.parse(data[0]!).model).toBe('deepseek-chat');
    });

    it('applies config.scenario and setScenario to every request; the header overrides item by item', async () => {
      await start({ scenario: 'status=429' });
      expect((await rawPost(emulator!.url, body)).status).toBe(429);
      emulator!.setScenario({ status: 500 });
      expect(emulator!.scenario).toEqual({ status: 500 });
      expect((await rawPost(emulator!.url, body)).status).toBe(500);
      expect((await post('status=503')).status).toBe(503);
      emulator!.setScenario();
      expect((await rawPost(emulator!.url, body)).status).toBe(200);
      expect(emulator!.requests.map((r) => r.status)).toEqual([429, 500, 503, 200]);
    });
  });

  describe('stream faults, as bytes on the wire', () => {
    beforeEach(async () => {
      await start({ dialect: 'deepseek' });
    });

    it('queue=300 writes ": keep-alive" comments before the first data (DeepSeek)', async () => {
      const res = await post('queue=300;keep-alive=50');
      const text = res.body.toString();
      const head = text.slice(0, text.indexOf('data: '));
      expect(head).toMatch(/^(: keep-alive\n\n){3,}$/);
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    });

    it('queue=500;keep-alive=100 writes exactly 5 comments, the same bytes even when the event loop is blocked', async () => {
      const scenario = 'queue=500;keep-alive=100';
      const calm = await post(scenario);
      const again = await post(scenario);
      const pending = post(scenario);
      await new Promise((resolve) => setTimeout(resolve, 30));
      for (const started = Date.now(); Date.now() - started < 260;); // block the loop inside the queue phase
      const blocked = await pending;
      const text = calm.body.toString();
      expect(text.slice(0, text.indexOf('data: '))).toBe(': keep-alive\n\n'.repeat(5));
      expect(again.body.equals(calm.body)).toBe(true);
      expect(blocked.body.toString()).toBe(text);
      // ceil(queue / keep-alive): a remainder gets its own comment.
      const odd = (await post('queue=250;keep-alive=100')).body.toString();
      expect(odd.slice(0, odd.indexOf('data: '))).toBe(': keep-alive\n\n'.repeat(3));
    });

    it('queue on moonshot stays silent (no comments)', async () => {
      await emulator!.close();
      await start({ dialect: 'moonshot' });
      const res = await post('queue=150', {}, { ...body, model: 'moonshot-v1-8k' });
      expect(res.body.toString().startsWith('data: {')).toBe(true);
    });

    it('pace=30 spaces the events', async () => {
      const started = Date.now();
      const res = await post('pace=30;tokens=5');
      expect(dataOf(res.body.toString())).toHaveLength(8);
      expect(Date.now() - started).toBeGreaterThanOrEqual(6 * 30 - 10);
    });

    it('stall-after=3 goes silent with the socket open, without [DONE]', async () => {
      const res = await post('stall-after=3', { stopAfterMs: 400 });
      expect(res.status).toBe(200);
      expect(res.ended).toBe(false);
      expect(res.error).toBeUndefined();
      expect(dataOf(res.body.toString())).toHaveLength(3);
      const record = emulator!.requests[0]!;
      await record.closed;
      expect(record.framesWritten).toBe(3);
      expect(record.closedEarly).toBe(true);
    });

    it('eof-after=3 ends the body cleanly without [DONE]; eof after the finishing chunk too', async () => {
      const res = await post('eof-after=3');
      expect(res.ended).toBe(true);
      const data = dataOf(res.body.toString());
      expect(data).toHaveLength(3);
      expect(data).not.toContain('[DONE]');
      const all = dataOf((await rawPost(emulator!.url, body)).body.toString());
      const cut = await post(`eof-after=${all.length - 1}`);
      const cutData = dataOf(cut.body.toString());
      expect(cutData).toEqual(all.slice(0, -1));
      expect(JSON.parse(cutData[cutData.length - 1]!).choices[0].finish_reason).toBe('stop');
    });

    it('reset-after=3 resets the TCP connection after 3 events', async () => {
      const res = await post('reset-after=3');
      expect(res.error?.code).toBe('ECONNRESET');
      expect(res.body.toString()).not.toContain('[DONE]');
      expect(emulator!.requests[0]!.closedEarly).toBe(false);
    });

    describe('a fault placed after more events than the answer has fires at the end, before [DONE]', () => {
      let events: string[];
      beforeEach(async () => {
        events = dataOf((await rawPost(emulator!.url, body)).body.toString()).slice(0, -1); // without [DONE]
        expect(events.length).toBeLessThan(1000);
      });

      it('stall-after=1000 goes silent after the last event, the socket open', async () => {
        const res = await post('stall-after=1000', { stopAfterMs: 400 });
        expect(res.ended).toBe(false);
        expect(dataOf(res.body.toString())).toEqual(events);
        await emulator!.requests[1]!.closed;
        expect(emulator!.requests[1]!.closedEarly).toBe(true);
      });

      it('eof-after=1000 ends cleanly after the last event, without [DONE]', async () => {
        const res = await post('eof-after=1000');
        expect(res.ended).toBe(true);
        expect(dataOf(res.body.toString())).toEqual(events);
      });

      it('reset-after=1000 resets the connection after the last event', async () => {
        const res = await post('reset-after=1000');
        expect(res.error?.code).toBe('ECONNRESET');
        expect(res.body.toString()).not.toContain('[DONE]');
      });

      it.each(['error-event-at=1000', 'error-payload-at=1000'])(
        '%s ends with the error, without [DONE]',
        async (item) => {
          const text = (await post(item)).body.toString();
          const data = dataOf(text);
          expect(data.slice(0, -1)).toEqual(events);
          expect(JSON.parse(data.at(-1)!)).toEqual({ error: expect.objectContaining({ message: expect.any(String) }) });
          expect(text.includes('event: error\n')).toBe(item.startsWith('error-event'));
        },
      );

      it.each([
        ['malformed-json-at=1000', 'content":"cut\n\n'],
        ['bare-line-at=1000', '\n\nthis is not an SSE line\n'],
        ['invalid-utf8-at=1000', '\ufffd\ufffd"},"finish_reason":null}]}\n\n'],
      ])('%s writes its line after the last event, then [DONE]', async (item, tail) => {
        const text = (await post(item)).body.toString();
        expect(text.endsWith(`${tail}data: [DONE]\n\n`)).toBe(true);
        expect(dataOf(text).slice(0, events.length)).toEqual(events);
      });
    });

    it('malformed-json-at=2 writes a line of cut JSON as the third event, then goes on', async () => {
      const data = dataOf((await post('malformed-json-at=2')).body.toString());
      expect(() => JSON.parse(data[2]!)).toThrow(SyntaxError);
      expect(data[2]).toMatch(/^\{"id":".*","object":"chat.completion.chunk",.*"content":"cut$/);
      expect(data[data.length - 1]).toBe('[DONE]');
    });

    it('error-event-at=2 writes an event: error frame, then EOF without [DONE]', async () => {
      const res = await post('error-event-at=2');
      const text = res.body.toString();
      expect(res.ended).toBe(true);
      expect(text).toMatch(
        /\n\nevent: error\ndata: \{"error":\{"message":"[^"]+","type":"[^"]+","param":null,"code":"[^"]+"\}\}\n\n$/,
      );
      expect(dataOf(text)).toHaveLength(3);
    });

    it('error-payload-at=2 writes data: {"error":…}, then EOF without [DONE]', async () => {
      const text = (await post('error-payload-at=2')).body.toString();
      const data = dataOf(text);
      expect(data).toHaveLength(3);
      expect(JSON.parse(data[2]!)).toEqual({ error: expect.objectContaining({ message: expect.any(String) }) });
      expect(text).not.toContain('event:');
    });

    it('bare-line-at=2 writes a non-SSE line, then the stream goes on to [DONE]', async () => {
      const text = (await post('bare-line-at=2')).body.toString();
      expect(text).toContain('\n\nthis is not an SSE line\ndata: ');
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    });

    it('huge-event writes one valid event of that size after the first event', async () => {
      const data = dataOf((await post('huge-event=3000000')).body.toString());
      expect(data[1]!.length).toBeGreaterThan(3_000_000);
      expect(JSON.parse(data[1]!).choices[0].delta.content).toHaveLength(3_000_000);
      expect(data[data.length - 1]).toBe('[DONE]');
    });

    it('invalid-utf8-at=1 writes bytes that are not UTF-8 inside an event', async () => {
      const res = await post('invalid-utf8-at=1');
      expect(res.body.includes(Buffer.from([0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22]))).toBe(true);
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(res.body)).toThrow();
    });

    it('no-space writes data: without the space', async () => {
      const text = (await post('no-space')).body.toString();
      const lines = text.split('\n').filter((l) => l !== '');
      expect(lines.every((l) => l.startsWith('data:{') || l === 'data:[DONE]')).toBe(true);
    });

    it('crlf ends every line with CRLF', async () => {
      const text = (await post('crlf;queue=60;keep-alive=20')).body.toString();
      expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
      expect(text).toMatch(/^: keep-alive\r\n\r\n/);
      expect(text.endsWith('data: [DONE]\r\n\r\n')).toBe(true);
    });

    it('finish=insufficient_system_resource sets the finish reason of the last chunk', async () => {
      const data = dataOf((await post('finish=insufficient_system_resource')).body.toString());
      expect(JSON.parse(data[data.length - 2]!).choices[0].finish_reason).toBe('insufficient_system_resource');
    });

    it('content-type=application/json overrides the header of the stream', async () => {
      const res = await post('content-type=application/json');
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body.toString().endsWith('data: [DONE]\n\n')).toBe(true);
    });

    it('x-emulator-tokens asks for a long answer', async () => {
      const res = await rawPost(emulator!.url, body, { headers: { 'x-emulator-tokens': '20000' } });
      expect(dataOf(res.body.toString())).toHaveLength(20003);
    });

    it.each(['split=64', 'split=random', 'split=5,40,41,42,700'])(
      '%s delivers the same bytes in several network pieces',
      async (split) => {
        const whole = (await rawPost(emulator!.url, body, { headers: { 'x-emulator-tokens': '8' } })).body;
        const res = await post(`${split};tokens=8`);
        expect(res.body.equals(whole)).toBe(true);
        expect(res.pieces.length).toBeGreaterThan(3);
      },
    );

    it('split=7 cuts inside multi-byte characters', async () => {
      const res = await post('split=7;split-delay=2;tokens=4');
      const fatal = new TextDecoder('utf-8', { fatal: true });
      const broken = res.pieces.filter((piece) => {
        try {
          fatal.decode(piece);
          return false;
        } catch {
          return true;
        }
      });
      expect(broken.length).toBeGreaterThan(0);
    });
  });

  describe('auth and validation', () => {
    it('checks the Bearer key when configured (401 in the dialect shape) and masks it in the record', async () => {
      await start({ dialect: 'moonshot', apiKey: 'sk-secret' });
      const denied = await rawPost(emulator!.url, body);
      expect(denied.status).toBe(401);
      expect(JSON.parse(denied.body.toString())).toEqual({
        error: { message: 'Invalid Authentication', type: 'invalid_authentication_error' },
      });
      const wrong = await rawPost(emulator!.url, body, { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const ok = await rawPost(emulator!.url, body, { headers: { authorization: 'Bearer sk-secret' } });
      expect(ok.status).toBe(200);
      expect(JSON.stringify(emulator!.requests)).not.toContain('sk-secret');
    });

    it('validates the request: 400 (DeepSeek 422 for a value out of range)', async () => {
      await start({ dialect: 'deepseek' });
      const empty = await rawPost(emulator!.url, { model: 'deepseek-chat', messages: [] });
      expect(empty.status).toBe(400);
      expect(JSON.parse(empty.body.toString()).error).toEqual({
        message: expect.stringMatching(/^Invalid request: messages/),
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      });
      expect((await rawPost(emulator!.url, { ...body, temperature: 5 })).status).toBe(422);
      expect((await rawPost(emulator!.url, '{"model":')).status).toBe(400);
      expect((await rawPost(emulator!.url, body, { path: '/nope' })).status).toBe(404);
      const bare = await rawPost(emulator!.url.replace(/\/v1$/, ''), body);
      expect(bare.status).toBe(200);
    });
  });
});
