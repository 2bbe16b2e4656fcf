import { Observable, map, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { AnswerFailedError, ConfigError, StreamProtocolError, UpstreamStreamError } from '../../src/core/errors';
import { toOutput } from '../../src/operators/toOutput';
import type { ChatCompletionChunk, ChunkChoice, ChunkDelta, LlmClientOutput, Usage } from '../../src/core/schemas';

const base = { id: 'cmpl-123abc', object: 'chat.completion.chunk', created: 1678048938, model: 'model-name' };
const delta = (d: ChunkDelta, extra: Partial<ChunkChoice> = {}): ChatCompletionChunk => ({
  ...base,
  choices: [{ index: 0, delta: d, ...extra }],
});
const usage: Usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

describe('toOutput', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('emits exactly one LlmClientOutput at completion (the spec example)', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-r-a-b-f-|', {
        r: delta({ role: 'assistant', content: '' }),
        a: delta({ content: "I'm doing well, " }),
        b: delta({ content: 'thank you for asking!' }),
        f: delta({ content: '' }, { finish_reason: 'stop', usage }),
      });
      const expected: LlmClientOutput = {
        id: 'cmpl-123abc',
        model: 'model-name',
        created: 1678048938,
        message: { role: 'assistant', content: "I'm doing well, thank you for asking!" },
        done: true,
        finish_reason: 'stop',
        usage,
      };
      expectObservable(source.pipe(toOutput())).toBe('---------(O|)', { O: expected });
      expectSubscriptions(source.subscriptions).toBe('^--------!');
    });
  });

  it('adds reasoning_content and assembled tool_calls only when present; content "" for a tool-only answer', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-b-c-d-|', {
        a: delta({ content: null, reasoning_content: 'Need ' }),
        b: delta({ content: null, reasoning_content: 'weather.' }),
        c: delta({
          content: null,
          tool_calls: [
            {
              index: 0,
              id: 'get_weather:0',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":' },
            },
          ],
        }),
        d: delta(
          { content: null, tool_calls: [{ index: 0, function: { arguments: '"北京"}' } }] },
          { finish_reason: 'tool_calls' },
        ),
      });
      expectObservable(source.pipe(toOutput())).toBe('---------(O|)', {
        O: {
          id: 'cmpl-123abc',
          model: 'model-name',
          created: 1678048938,
          message: {
            role: 'assistant',
            content: '',
            reasoning_content: 'Need weather.',
            tool_calls: [
              {
                id: 'get_weather:0',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"北京"}' },
              },
            ],
          },
          done: true,
          finish_reason: 'tool_calls',
        },
      });
    });
  });

  it('keeps the first id/model/created and falls back to "" when the stream carried none', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const bare: ChatCompletionChunk = { choices: [{ index: 0, delta: { content: 'x' } }] };
      const result = cold('-a-|', { a: bare }).pipe(
        toOutput(),
        map(({ id, model, message }) => ({ id, model, message })),
      );
      expectObservable(result).toBe('---(O|)', {
        O: { id: '', model: '', message: { role: 'assistant', content: 'x' } },
      });
    });
  });

  it('keeps only config.choice when n > 1', () => {
    const c = (i: number, content: string): ChatCompletionChunk => ({
      ...base,
      choices: [{ index: i, delta: { content } }],
    });
    scheduler.run(({ cold, expectObservable }) => {
      const result = cold('-a-b-c-|', { a: c(0, 'A'), b: c(1, 'B'), c: c(1, 'b') }).pipe(
        toOutput({ choice: 1 }),
        map((o) => o.message.content),
      );
      expectObservable(result).toBe('-------(O|)', { O: 'Bb' });
    });
  });

  it('fails the answer on insufficient_system_resource without waiting for the end', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-f---|', {
        a: delta({ content: 'x' }),
        f: delta({}, { finish_reason: 'insufficient_system_resource' }),
      });
      expectObservable(source.pipe(toOutput())).toBe(
        '---#',
        undefined,
        new AnswerFailedError(
          'insufficient_system_resource',
          'the upstream answer failed with finish_reason "insufficient_system_resource"',
        ),
      );
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('errors with stream_incomplete when the source completes without any chunk', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<ChatCompletionChunk>('---|').pipe(toOutput())).toBe(
        '---#',
        undefined,
        new StreamProtocolError('stream_incomplete', 'the upstream stream ended without any chunk'),
      );
    });
  });

  it('passes source errors through, before the first chunk and after some', () => {
    const error = new UpstreamStreamError('cut');
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<ChatCompletionChunk>('-#', undefined, error).pipe(toOutput())).toBe('-#', undefined, error);
      expectObservable(cold('-a-a-#', { a: delta({ content: 'x' }) }, error).pipe(toOutput())).toBe(
        '-----#',
        undefined,
        error,
      );
    });
  });

  it('keeps no state between subscriptions', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const answer = cold('-a-|', { a: delta({ content: 'x' }) }).pipe(
        toOutput(),
        map((o) => o.message.content),
      );
      expectObservable(answer).toBe('---(O|)', { O: 'x' });
      expectObservable(answer).toBe('---(O|)', { O: 'x' });
    });
  });

  it('does not break unsubscription chains', () => {
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-b-c-|', {
        a: delta({ content: 'a' }),
        b: delta({ content: 'b' }),
        c: delta({ content: 'c' }),
      });
      const result = source.pipe(
        map((x) => x),
        toOutput(),
        map((x) => x),
      );
      expectObservable(result, '^--!').toBe('---');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('stops listening to a synchronous firehose when unsubscribed', () => {
    let sent = 0;
    const firehose = new Observable<ChatCompletionChunk>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 1000; i++) {
        sent += 1;
        subscriber.next(
          i === 2 ? delta({}, { finish_reason: 'insufficient_system_resource' }) : delta({ content: 'x' }),
        );
      }
    });
    let failed: unknown;
    firehose.pipe(toOutput(), take(1)).subscribe({ error: (e: unknown) => (failed = e) });
    expect(failed).toBeInstanceOf(AnswerFailedError);
    expect(sent).toBe(3);
  });

  it('rejects a bad choice', () => {
    expect(() => toOutput({ choice: -2 })).toThrow(ConfigError);
  });
});
