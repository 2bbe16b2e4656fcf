import { Observable, map, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { AnswerFailedError, ConfigError, StreamProtocolError, UpstreamStreamError } from '../../src/core/errors';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import type {
  ChatCompletionChunk,
  ChunkChoice,
  ChunkDelta,
  LlmClientOutputChunk,
  ToolCallDelta,
  Usage,
} from '../../src/core/schemas';

const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm' };
const delta = (d: ChunkDelta, extra: Partial<ChunkChoice> = {}): ChatCompletionChunk => ({
  ...base,
  choices: [{ index: 0, delta: d, ...extra }],
});
const usage: Usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
const out = (
  content: string,
  index: number,
  more: Partial<LlmClientOutputChunk> & { reasoning_content?: string } = {},
): LlmClientOutputChunk => {
  const { reasoning_content, ...rest } = more;
  return {
    message: { role: 'assistant', content, ...(reasoning_content === undefined ? {} : { reasoning_content }) },
    done: false,
    index,
    ...rest,
  };
};

describe('toOutputChunks', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('emits one chunk per delta that says something, indexes without gaps, and one done chunk at completion', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-r-a-e-b-f-|', {
        r: delta({ role: 'assistant', content: '' }),
        a: delta({ content: "I'm " }),
        e: delta({ content: '' }),
        b: delta({ content: 'doing well' }),
        f: delta({}, { finish_reason: 'stop', usage }),
      });
      expectObservable(source.pipe(toOutputChunks())).toBe('---A---B---(D|)', {
        A: out("I'm ", 0),
        B: out('doing well', 1),
        D: { message: { role: 'assistant', content: '' }, done: true, index: 2, finish_reason: 'stop', usage },
      });
      expectSubscriptions(source.subscriptions).toBe('^----------!');
    });
  });

  it('puts reasoning deltas on message.reasoning_content with content ""', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-b-c-|', {
        a: delta({ role: 'assistant', content: null, reasoning_content: '' }),
        b: delta({ content: null, reasoning_content: 'Hmm.' }),
        c: delta({ content: 'Yes', reasoning_content: null }, { finish_reason: 'stop' }),
      });
      expectObservable(source.pipe(toOutputChunks())).toBe('---B-C-(D|)', {
        B: out('', 0, { reasoning_content: 'Hmm.' }),
        C: out('Yes', 1),
        D: { message: { role: 'assistant', content: '' }, done: true, index: 2, finish_reason: 'stop' },
      });
    });
  });

  it('emits tool calls assembled, once complete, never fragments; the last one on the done chunk when the end completes it', () => {
    const call = (fragment: ToolCallDelta) => delta({ content: null, tool_calls: [fragment] });
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-b-c-d-|', {
        a: call({ index: 0, id: 'call_0', type: 'function', function: { name: 'f', arguments: '' } }),
        b: call({ index: 0, function: { arguments: '{"x":1}' } }),
        c: call({ index: 1, id: 'call_1', type: 'function', function: { name: 'g', arguments: '{}' } }),
        d: delta({ content: 'ok' }),
      });
      expectObservable(source.pipe(toOutputChunks())).toBe('-----C-D-(E|)', {
        C: {
          message: {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
          },
          done: false,
          index: 0,
        },
        D: out('ok', 1),
        E: {
          message: {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'g', arguments: '{}' } }],
          },
          done: true,
          index: 2,
        },
      });
    });
  });

  it('takes usage from inside the choice (Moonshot) and counts a later top-level usage chunk once', () => {
    const total: Usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, cached_tokens: 0 };
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-f-u-|', {
        a: delta({ content: 'Hi' }),
        f: delta({}, { finish_reason: 'stop', usage }),
        u: { ...base, choices: [], usage: total },
      });
      expectObservable(source.pipe(toOutputChunks())).toBe('-A-----(D|)', {
        A: out('Hi', 0),
        D: { message: { role: 'assistant', content: '' }, done: true, index: 1, finish_reason: 'stop', usage: total },
      });
    });
  });

  it('follows choice 0 by default and config.choice otherwise (n > 1)', () => {
    const two = (i: number, content: string, finish?: string): ChatCompletionChunk => ({
      ...base,
      choices: [{ index: i, delta: { content }, ...(finish ? { finish_reason: finish } : {}) }],
    });
    const values = { a: two(0, 'A0'), b: two(1, 'B1'), c: two(0, '', 'stop'), d: two(1, '', 'length') };
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-c-d-|', values).pipe(toOutputChunks())).toBe('-A-------(D|)', {
        A: out('A0', 0),
        D: { message: { role: 'assistant', content: '' }, done: true, index: 1, finish_reason: 'stop' },
      });
      expectObservable(cold('-a-b-c-d-|', values).pipe(toOutputChunks({ choice: 1 }))).toBe('---B-----(D|)', {
        B: out('B1', 0),
        D: { message: { role: 'assistant', content: '' }, done: true, index: 1, finish_reason: 'length' },
      });
    });
  });

  it("n > 1: ignores a top-level usage on another choice's chunk (decodeChunk copies Moonshot's per-choice usage up)", () => {
    const u0: Usage = { prompt_tokens: 10, completion_tokens: 6, total_tokens: 16 };
    const u1: Usage = { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 };
    const fin = (i: number, u: Usage): ChatCompletionChunk => ({
      ...base,
      choices: [{ index: i, delta: {}, finish_reason: 'stop', usage: u }],
      usage: u,
    });
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-b-|', { a: fin(0, u0), b: fin(1, u1) });
      expectObservable(source.pipe(toOutputChunks())).toBe('-----(D|)', {
        D: { message: { role: 'assistant', content: '' }, done: true, index: 0, finish_reason: 'stop', usage: u0 },
      });
    });
  });

  it('matches a choice without index by its position, and treats finish_reason "" as absent', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-|', { a: { ...base, choices: [{ delta: { content: 'x' }, finish_reason: '' }] } });
      expectObservable(source.pipe(toOutputChunks())).toBe('-A-(D|)', {
        A: out('x', 0),
        D: { message: { role: 'assistant', content: '' }, done: true, index: 1 },
      });
    });
  });

  it('fails the answer on finish_reason insufficient_system_resource, at once', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-f-b-|', {
        a: delta({ content: 'par' }),
        f: delta({}, { finish_reason: 'insufficient_system_resource' }),
        b: delta({ content: 'x' }),
      });
      expectObservable(source.pipe(toOutputChunks())).toBe(
        '-A-#',
        { A: out('par', 0) },
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
      expectObservable(cold<ChatCompletionChunk>('--|').pipe(toOutputChunks())).toBe(
        '--#',
        undefined,
        new StreamProtocolError('stream_incomplete', 'the upstream stream ended without any chunk'),
      );
    });
  });

  it('passes source errors through, before the first value and after some', () => {
    const error = new UpstreamStreamError('overloaded');
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<ChatCompletionChunk>('--#', undefined, error).pipe(toOutputChunks())).toBe(
        '--#',
        undefined,
        error,
      );
      expectObservable(cold('-a-#', { a: delta({ content: 'x' }) }, error).pipe(toOutputChunks())).toBe(
        '-A-#',
        { A: out('x', 0) },
        error,
      );
    });
  });

  it('restarts the index for each subscription', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const chunks = cold('-a-|', { a: delta({ content: 'x' }) }).pipe(toOutputChunks());
      const expected = { A: out('x', 0), D: { message: { role: 'assistant', content: '' }, done: true, index: 1 } };
      expectObservable(chunks).toBe('-A-(D|)', expected);
      expectObservable(chunks).toBe('-A-(D|)', expected);
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
        toOutputChunks(),
        map((x) => x.message.content),
      );
      expectObservable(result, '^--!').toBe('-a-');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('stops listening to a synchronous firehose when unsubscribed', () => {
    let sent = 0;
    const firehose = new Observable<ChatCompletionChunk>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 1000; i++) {
        sent += 1;
        subscriber.next(delta({ content: String(i) }));
      }
    });
    const got: string[] = [];
    firehose.pipe(toOutputChunks(), take(3)).subscribe((chunk) => got.push(chunk.message.content));
    expect(got).toEqual(['0', '1', '2']);
    expect(sent).toBe(3);
  });

  it.each([-1, 1.5, Number.NaN])('rejects choice %p', (choice) => {
    expect(() => toOutputChunks({ choice })).toThrow(ConfigError);
  });
});
