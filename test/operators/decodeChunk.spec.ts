import { Observable, from, lastValueFrom, mergeMap, of, take, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { isConfigError, isStreamProtocolError, isUpstreamStreamError, type ChatfluxError } from '../../src/core/errors';
import { decodeChunk, type DecodeChunkConfig } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import type { ChatCompletionChunk } from '../../src/core/schemas';
import type { SseEvent } from '../../src/core/types';
import { SUCCESS_FIXTURE_NAMES, readFixture, type FixtureName } from '../helpers/readFixture';

const chunkJson = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content } }],
    ...extra,
  });
const ev = (data: string, event?: string): SseEvent => (event === undefined ? { data } : { data, event });
const DONE = ev('[DONE]');

const decodeAll = (events: readonly SseEvent[], config?: DecodeChunkConfig): Promise<ChatCompletionChunk[]> =>
  lastValueFrom(from(events).pipe(decodeChunk(config), toArray()));
const decodeError = async (events: readonly SseEvent[], config?: DecodeChunkConfig) => {
  const seen: ChatCompletionChunk[] = [];
  const error = await new Promise<unknown>((resolve, reject) =>
    from(events)
      .pipe(decodeChunk(config))
      .subscribe({
        next: (c) => seen.push(c),
        error: resolve,
        complete: () => reject(new Error('completed without error')),
      }),
  );
  return { seen, error: error as ChatfluxError & { snippet?: string; upstreamType?: string; upstreamCode?: string } };
};
const fixture = (name: FixtureName): Promise<ChatCompletionChunk[]> =>
  lastValueFrom(of(readFixture(name)).pipe(parseSse(), decodeChunk(), toArray()));
const fixtureError = (name: FixtureName): Promise<ChatfluxError & { snippet?: string; upstreamType?: string }> =>
  new Promise((resolve, reject) =>
    of(readFixture(name))
      .pipe(parseSse(), decodeChunk())
      .subscribe({ error: resolve, complete: () => reject(new Error('completed without error')) }),
  );

describe('decodeChunk', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('marbles', () => {
    it('decodes every message event and completes at [DONE], unsubscribing from the source at that frame', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('--a--b--D--c--|', {
          a: ev(chunkJson('x')),
          b: ev(chunkJson('y')),
          D: DONE,
          c: ev('{not json'),
        });
        const expected = '--A--B--|';
        expectObservable(source.pipe(decodeChunk())).toBe(expected, {
          A: JSON.parse(chunkJson('x')),
          B: JSON.parse(chunkJson('y')),
        });
        expectSubscriptions(source.subscriptions).toBe('^-------!');
      });
    });

    it('errors with stream_incomplete when the source completes without [DONE]', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('--a--|', { a: ev(chunkJson('x')) });
        const error = expect.objectContaining({ name: 'StreamProtocolError', code: 'stream_incomplete' });
        expectObservable(source.pipe(decodeChunk())).toBe('--A--#', { A: JSON.parse(chunkJson('x')) }, error);
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('errors at a malformed event and unsubscribes from the source at that frame', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('--a--b--D|', { a: ev(chunkJson('x')), b: ev('{"id":'), D: DONE });
        const error = expect.objectContaining({ code: 'malformed_json' });
        expectObservable(source.pipe(decodeChunk())).toBe('--A--#', { A: JSON.parse(chunkJson('x')) }, error);
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('through parseSse: the byte source is unsubscribed in the frame that carries [DONE]', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a-b--c--|', {
          a: `data: ${chunkJson('x')}\n`,
          b: '\ndata: [DO',
          c: 'NE]\n\ndata: junk\n\n',
        });
        expectObservable(source.pipe(parseSse(), decodeChunk())).toBe('---A--|', { A: JSON.parse(chunkJson('x')) });
        expectSubscriptions(source.subscriptions).toBe('^-----!');
      });
    });

    it('passes source errors through', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('--a--#', { a: ev(chunkJson('x')) }, new Error('network'));
        expectObservable(source.pipe(decodeChunk())).toBe(
          '--A--#',
          { A: JSON.parse(chunkJson('x')) },
          new Error('network'),
        );
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('does not break unsubscription chains when the result is unsubscribed explicitly', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const source = hot('--a--b--c--D--|', {
          a: ev(chunkJson('1')),
          b: ev(chunkJson('2')),
          c: ev(chunkJson('3')),
          D: DONE,
        });
        const result = source.pipe(
          mergeMap((x) => of(x)),
          decodeChunk(),
          mergeMap((x) => of(x)),
        );
        expectObservable(result, '^------!').toBe('--A--B--', {
          A: JSON.parse(chunkJson('1')),
          B: JSON.parse(chunkJson('2')),
        });
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });

    it('skips events of other types between chunks', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a-p-D|', { a: ev(chunkJson('x')), p: ev('{"not":"a chunk"', 'ping'), D: DONE });
        expectObservable(source.pipe(decodeChunk())).toBe('-A---|', { A: JSON.parse(chunkJson('x')) });
      });
    });
  });

  it('stops listening to a synchronous source when the result is unsubscribed (firehose + take)', () => {
    const sideEffects: number[] = [];
    const firehose = new Observable<SseEvent>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 100; i++) {
        sideEffects.push(i);
        subscriber.next(ev(chunkJson(String(i))));
      }
      subscriber.complete();
    });
    const seen: string[] = [];
    firehose.pipe(decodeChunk(), take(3)).subscribe((c) => seen.push(String(c.choices[0]?.delta?.content)));
    expect(seen).toEqual(['0', '1', '2']);
    expect(sideEffects).toEqual([0, 1, 2]);
  });

  it('stops a synchronous source at [DONE]: nothing after it is read', () => {
    const read: string[] = [];
    const source = new Observable<SseEvent>((subscriber) => {
      for (const e of [ev(chunkJson('a')), DONE, ev('junk'), ev(chunkJson('b'))]) {
        if (subscriber.closed) break;
        read.push(e.data);
        subscriber.next(e);
      }
      subscriber.complete();
    });
    let completed = false;
    source.pipe(decodeChunk()).subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(true);
    expect(read).toEqual([chunkJson('a'), '[DONE]']);
  });

  describe('[DONE]', () => {
    it('only an exact [DONE] ends the stream', async () => {
      for (const data of [' [DONE]', '[DONE] ', '[done]', '[DONE]\n']) {
        const { error } = await decodeError([ev(data), DONE]);
        expect(error.code).toBe('malformed_json');
      }
      expect((await decodeError([ev('"[DONE]"'), DONE])).error.code).toBe('schema_violation');
    });

    it('an event: message [DONE] ends it too; [DONE] of another event type is skipped like its event', async () => {
      expect(await decodeAll([ev(chunkJson('a')), ev('[DONE]', 'message')])).toHaveLength(1);
      const { error } = await decodeError([ev('[DONE]', 'done')]);
      expect(error.code).toBe('stream_incomplete');
    });
  });

  describe('chunk shapes', () => {
    it('keeps unknown fields, nulls and omitted fields as sent', async () => {
      const raw = {
        id: 'x',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'deepseek-chat',
        system_fingerprint: null,
        choices: [
          {
            index: 0,
            delta: { content: null, reasoning_content: 'r' },
            logprobs: null,
            finish_reason: null,
            extra: [1],
          },
        ],
        usage: null,
        vendor: { a: 1 },
      };
      expect(await decodeAll([ev(JSON.stringify(raw)), DONE])).toEqual([raw]);
    });

    it('accepts choices: [] and a missing choices (as [])', async () => {
      const [a, b] = await decodeAll([ev('{"choices":[],"usage":{"total_tokens":3}}'), ev('{"id":"x"}'), DONE]);
      expect(a).toEqual({ choices: [], usage: { total_tokens: 3 } });
      expect(b).toEqual({ id: 'x', choices: [] });
    });

    it('accepts a choice without delta (Moonshot finishing chunks use delta: {})', async () => {
      const [a] = await decodeAll([
        ev('{"choices":[{"index":0,"finish_reason":"stop"},{"index":1,"delta":{}}]}'),
        DONE,
      ]);
      expect(a?.choices).toEqual([
        { index: 0, finish_reason: 'stop' },
        { index: 1, delta: {} },
      ]);
    });

    it("lifts Moonshot's choices[i].usage to the top level when the top level has none, keeping the choice as is", async () => {
      const usage = { prompt_tokens: 19, completion_tokens: 6, total_tokens: 25 };
      const [a] = await decodeAll([
        ev(JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage }] })),
        DONE,
      ]);
      expect(a?.usage).toEqual(usage);
      expect(a?.choices[0]?.usage).toEqual(usage);
      const [b] = await decodeAll([ev(JSON.stringify({ usage: null, choices: [{ index: 0, usage }] })), DONE]);
      expect(b?.usage).toEqual(usage);
    });

    it('leaves a top-level usage alone', async () => {
      const [a] = await decodeAll([
        ev(JSON.stringify({ usage: { total_tokens: 1 }, choices: [{ index: 0, usage: { total_tokens: 2 } }] })),
        DONE,
      ]);
      expect(a?.usage).toEqual({ total_tokens: 1 });
    });

    it('schema violation names the path and carries the text', async () => {
      const data = '{"choices":[{"index":0,"delta":{"content":42}}]}';
      const { error } = await decodeError([ev(data), DONE]);
      expect(isStreamProtocolError(error)).toBe(true);
      expect(error.code).toBe('schema_violation');
      expect(error.message).toContain('choices.0.delta.content');
      expect(error.snippet).toBe(data);
    });

    it.each(['[]', '"text"', '42', 'null', '{"choices":null}', '{"choices":[{"index":-1}]}', '{"created":"now"}'])(
      'rejects %s as a schema violation',
      async (data) => {
        const { error } = await decodeError([ev(data), DONE]);
        expect(error.code).toBe('schema_violation');
      },
    );

    it('validate: false passes any object on without the schema check', async () => {
      const [a] = await decodeAll([ev('{"choices":[{"index":"zero"}],"x":1}'), DONE], { validate: false });
      expect(a).toEqual({ choices: [{ index: 'zero' }], x: 1 });
      const { error } = await decodeError([ev('[1]'), DONE], { validate: false });
      expect(error.code).toBe('schema_violation');
    });

    it('validate: false turns choices: null into [] (the usage lift reads them)', async () => {
      const [a] = await decodeAll([ev('{"choices":null,"usage":null}'), DONE], { validate: false });
      expect(a).toEqual({ choices: [], usage: null });
    });
  });

  describe('errors', () => {
    it('config.secrets: literal secrets of any shape leave error messages, codes and snippets', async () => {
      const secret = 'opaque-key-1234abcd';
      const cases: SseEvent[] = [
        ev(`{"error":{"message":"key ${secret} revoked","type":"t","code":"${secret}"}}`),
        ev(`key ${secret} revoked`, 'error'),
        ev(`{"choices":[${secret}`),
      ];
      for (const event of cases) {
        const { error } = await decodeError([event, DONE], { secrets: [secret] });
        expect(JSON.stringify({ ...error, message: error.message })).not.toContain(secret);
        expect(error.message + JSON.stringify(error)).toContain('[redacted]');
      }
      expect(() => decodeChunk({ secrets: 'k' as unknown as string[] })).toThrow(
        expect.objectContaining({ code: 'invalid_config' }),
      );
    });

    it("config.secrets: a chunk's id, model and system_fingerprint echoing a secret are redacted on every chunk (marbles)", () => {
      const secret = 'opaque-key-1234abcd';
      const echo = (content: string, model: string) =>
        ev(chunkJson(content, { id: `chatcmpl-${secret}`, model, system_fingerprint: `fp_${secret}` }));
      const scrubbed = (content: string, model: string) =>
        expect.objectContaining({ id: 'chatcmpl-[redacted]', model, system_fingerprint: 'fp_[redacted]', choices: [{ index: 0, delta: { content } }] });
      new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable, expectSubscriptions }) => {
        // The same strings on each chunk (redacted once, then reused), a model that changes mid-stream, a key-shaped one.
        const source = cold('-a-b-c-d-D', { a: echo('x', secret), b: echo('y', secret), c: echo('z', 'm2'), d: echo('w', 'sk-abcdef123456'), D: DONE });
        expectObservable(source.pipe(decodeChunk({ secrets: [secret] }))).toBe('-a-b-c-d-|', {
          a: scrubbed('x', '[redacted]'),
          b: scrubbed('y', '[redacted]'),
          c: scrubbed('z', 'm2'),
          d: scrubbed('w', '[redacted]'),
        });
        expectSubscriptions(source.subscriptions).toBe('^--------!');
      });
    });

    it('malformed JSON → malformed_json with the text truncated to maxSnippet', async () => {
      const data = `{"choices":[${'x'.repeat(500)}`;
      const { error } = await decodeError([ev(data), DONE], { maxSnippet: 20 });
      expect(error.code).toBe('malformed_json');
      expect(error.snippet).toBe(`${data.slice(0, 20)}… (${data.length} chars)`);
    });

    it('the snippet of an error never carries a key', async () => {
      const { error } = await decodeError([ev('{"auth":"Bearer sk-abcdefghijklmnop", oops}'), DONE]);
      expect(error.snippet).not.toContain('sk-abcdefghijklmnop');
    });

    it('event: error → UpstreamStreamError with the upstream message, type and code', async () => {
      const { seen, error } = await decodeError([
        ev(chunkJson('a')),
        ev('{"error":{"message":"engine overloaded","type":"engine_overloaded_error","code":"overloaded"}}', 'error'),
        DONE,
      ]);
      expect(seen).toHaveLength(1);
      expect(isUpstreamStreamError(error)).toBe(true);
      expect(error.code).toBe('upstream_error');
      expect(error.message).toBe('engine overloaded');
      expect(error.upstreamType).toBe('engine_overloaded_error');
      expect(error.upstreamCode).toBe('overloaded');
    });

    it('event: error with a flat body, with plain text, and with empty data', async () => {
      expect((await decodeError([ev('{"message":"m","type":"t","code":500}', 'error')])).error).toMatchObject({
        message: 'm',
        upstreamType: 't',
        upstreamCode: '500',
      });
      expect((await decodeError([ev('upstream went away', 'error')])).error).toMatchObject({
        message: 'upstream went away',
      });
      expect((await decodeError([ev('', 'error')])).error).toMatchObject({
        code: 'upstream_error',
        message: 'unknown upstream error',
      });
    });

    it('a {"error":…} payload → UpstreamStreamError; a string error too', async () => {
      const { error } = await decodeError([
        ev('{"error":{"message":"The server is overloaded","type":"server_error"}}'),
        DONE,
      ]);
      expect(error).toMatchObject({
        name: 'UpstreamStreamError',
        message: 'The server is overloaded',
        upstreamType: 'server_error',
      });
      expect((await decodeError([ev('{"error":"quota"}')])).error).toMatchObject({
        name: 'UpstreamStreamError',
        message: 'quota',
      });
    });

    it('"error": null in a chunk is not an error', async () => {
      expect(await decodeAll([ev('{"choices":[],"error":null}'), DONE])).toEqual([{ choices: [], error: null }]);
    });

    it('upstream error messages are redacted', async () => {
      const { error } = await decodeError([
        ev('{"error":{"message":"bad key sk-abcdefghijklmnopqrstu for Bearer abcdefghijkl"}}'),
      ]);
      expect(error.message).not.toContain('sk-abcdefghijklmnopqrstu');
      expect(error.message).not.toContain('abcdefghijkl');
      expect(error.message).toContain('[redacted]');
    });
  });

  describe('config', () => {
    it.each([{ maxSnippet: -1 }, { maxSnippet: 1.5 }, { validate: 'yes' as unknown as boolean }])(
      'rejects %p with a ConfigError',
      (config) => {
        let caught: unknown;
        try {
          decodeChunk(config);
        } catch (error) {
          caught = error;
        }
        expect(isConfigError(caught)).toBe(true);
      },
    );
  });

  describe('provider transcripts (parseSse → decodeChunk)', () => {
    it.each(SUCCESS_FIXTURE_NAMES)('%s decodes to chunks and completes', async (name) => {
      const chunks = await fixture(name);
      expect(chunks.length).toBeGreaterThan(0);
      for (const c of chunks) expect(Array.isArray(c.choices)).toBe(true);
    });

    it('DeepSeek keep-alive queue: comments are not chunks', async () => {
      const chunks = await fixture('deepseek-keepalive-queue');
      expect(chunks.map((c) => c.object)).toEqual(chunks.map(() => 'chat.completion.chunk'));
    });

    it('Moonshot: the usage inside the finishing choice is available at the top level', async () => {
      const chunks = await fixture('moonshot-plain');
      const last = chunks.at(-1);
      expect(last?.choices[0]?.finish_reason).toBe('stop');
      expect(last?.usage).toEqual(last?.choices[0]?.usage);
      expect(last?.usage?.total_tokens).toEqual(expect.any(Number));
    });

    it('eof-without-done → stream_incomplete; eof-after-finish-reason completes (requireDone: stream_incomplete)', async () => {
      expect((await fixtureError('eof-without-done')).code).toBe('stream_incomplete');
      const chunks = await fixture('eof-after-finish-reason');
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      const strict = await new Promise<ChatfluxError>((resolve, reject) =>
        of(readFixture('eof-after-finish-reason'))
          .pipe(parseSse(), decodeChunk({ requireDone: true }))
          .subscribe({ error: resolve, complete: () => reject(new Error('completed without error')) }),
      );
      expect(strict.code).toBe('stream_incomplete');
    });

    it('inband-error-event / inband-error-payload → UpstreamStreamError', async () => {
      expect(await fixtureError('inband-error-event')).toMatchObject({
        name: 'UpstreamStreamError',
        message: 'engine overloaded, please try again after 1 seconds',
        upstreamType: 'engine_overloaded_error',
      });
      expect(await fixtureError('inband-error-payload')).toMatchObject({ name: 'UpstreamStreamError' });
    });

    it('malformed-json → malformed_json with the offending text', async () => {
      const error = await fixtureError('malformed-json');
      expect(error.code).toBe('malformed_json');
      expect(error.snippet).toContain('坏');
    });

    it('a bare non-SSE line and data: without a space are fine', async () => {
      const text = `garbage line\n\ndata:${chunkJson('a')}\n\n: ping\n\ndata:[DONE]\n\n`;
      const chunks = await lastValueFrom(of(text).pipe(parseSse(), decodeChunk(), toArray()));
      expect(chunks).toEqual([JSON.parse(chunkJson('a'))]);
    });
  });
});
