import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { UpstreamStreamError } from '../../src/core/errors';
import type { LlmClientOutput, LlmClientOutputChunk, Usage } from '../../src/core/schemas';
import { toChatCompletion } from '../../src/operators/toChatCompletion';
import { toChatCompletionChunks } from '../../src/operators/toChatCompletionChunks';

const usage: Usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
const piece = (message: Partial<LlmClientOutputChunk['message']>, index: number, done = false, extra: Partial<LlmClientOutputChunk> = {}): LlmClientOutputChunk => ({
  message: { role: 'assistant', content: '', ...message },
  done,
  index,
  ...extra,
});
const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 7, model: 'm' };
const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({ ...head, choices: [{ index: 0, delta, finish_reason }] });
const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });

describe('toChatCompletionChunks', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const config = { id: 'chatcmpl-1', created: 7, model: 'm' };

  it('gives role first, text, reasoning and refusal in their fields, then the finishing chunk', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-r-a-f-(d|)', {
        r: piece({ reasoning_content: 'think' }, 0),
        a: piece({ content: 'Hi' }, 1),
        f: piece({ refusal: 'no' }, 2),
        d: piece({}, 3, true, { finish_reason: 'stop', usage }),
      });
      expectObservable(source.pipe(toChatCompletionChunks(config))).toBe('-r-a-f-(d|)', {
        r: chunk({ role: 'assistant', reasoning_content: 'think' }),
        a: chunk({ content: 'Hi' }),
        f: chunk({ refusal: 'no' }),
        d: chunk({}, 'stop'),
      });
    });
  });

  it('gives each tool call whole with its running index, id and type, and the usage chunk when asked', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-t-(d|)', {
        t: piece({ tool_calls: [call('a:0', 'f', '{}')] }, 0),
        d: piece({ tool_calls: [call('b:1', 'g', '{"x":1}')] }, 1, true, { finish_reason: 'tool_calls', usage }),
      });
      expectObservable(source.pipe(toChatCompletionChunks({ ...config, includeUsage: true }))).toBe('-t-(dfu|)', {
        t: chunk({ role: 'assistant', tool_calls: [{ index: 0, ...call('a:0', 'f', '{}') }] }),
        d: chunk({ tool_calls: [{ index: 1, ...call('b:1', 'g', '{"x":1}') }] }),
        f: chunk({}, 'tool_calls'),
        u: { ...head, choices: [], usage },
      });
    });
  });

  it('an empty answer still has the role and a finish reason (stop when none); unknown usage is null', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('--(d|)', { d: piece({}, 0, true) });
      expectObservable(source.pipe(toChatCompletionChunks({ ...config, includeUsage: true }))).toBe('--(fu|)', {
        f: chunk({ role: 'assistant' }, 'stop'),
        u: { ...head, choices: [], usage: null },
      });
    });
  });

  it('names the model a route’s last chunk reports (after a failover) on the finishing and usage chunks', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-(d|)', { a: piece({ content: 'Hi' }, 0), d: { ...piece({}, 1, true, { finish_reason: 'stop', usage }), model: 'backup' } });
      expectObservable(source.pipe(toChatCompletionChunks({ ...config, includeUsage: true }))).toBe('-a-(fu|)', {
        a: chunk({ role: 'assistant', content: 'Hi' }),
        f: { ...chunk({}, 'stop'), model: 'backup' },
        u: { ...head, model: 'backup', choices: [], usage },
      });
    });
  });

  it('passes an error through without a finishing chunk', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const error = new UpstreamStreamError('cut');
      const source = cold('-a-#', { a: piece({ content: 'Hi' }, 0) }, error);
      expectObservable(source.pipe(toChatCompletionChunks(config))).toBe('-a-#', { a: chunk({ role: 'assistant', content: 'Hi' }) }, error);
    });
  });

  it('passes an unsubscription on to the source', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-|', { a: piece({ content: 'a' }, 0), b: piece({ content: 'b' }, 1), c: piece({ content: 'c' }, 2) });
      expectObservable(source.pipe(toChatCompletionChunks(config)), '^--!').toBe('-a-', { a: chunk({ role: 'assistant', content: 'a' }) });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('lets a synchronous source see `closed` once the consumer is done (firehose + take)', () => {
    const sent: number[] = [];
    const firehose = new Observable<LlmClientOutputChunk>((subscriber) => {
      for (let i = 0; i < 100 && !subscriber.closed; i++) {
        sent.push(i);
        subscriber.next(piece({ content: String(i) }, i));
      }
      subscriber.complete();
    });
    const seen: unknown[] = [];
    firehose.pipe(toChatCompletionChunks(config), take(2)).subscribe((value) => seen.push(value));
    expect(seen).toHaveLength(2);
    expect(sent).toEqual([0, 1]);
  });

  it('errors (rather than losing the throw) on a piece without a message, and unsubscribes the source there', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-|', { a: piece({ content: 'Hi' }, 0), b: { done: false, index: 1 } as unknown as LlmClientOutputChunk });
      expectObservable(source.pipe(toChatCompletionChunks(config))).toBe('-a-#', { a: chunk({ role: 'assistant', content: 'Hi' }) }, expect.any(TypeError));
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('names a fresh chatcmpl id and the current time by default', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('(d|)', { d: piece({}, 0, true) });
      expectObservable(source.pipe(toChatCompletionChunks({ model: 'm' }))).toBe('(d|)', {
        d: { ...chunk({ role: 'assistant' }, 'stop'), id: expect.stringMatching(/^chatcmpl-[0-9a-f-]{36}$/), created: expect.any(Number) },
      });
    });
  });
});

describe('toChatCompletion', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const output = { id: 'x', model: 'm', created: 7, done: true as const };

  it('makes one chat.completion: content null beside tool calls, refusal null when none, usage at the top level', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('--(a|)', {
        a: { ...output, message: { role: 'assistant' as const, content: '', reasoning_content: 'r', tool_calls: [call('c', 'f', '{}')] }, finish_reason: 'tool_calls', usage },
      });
      expectObservable(source.pipe(toChatCompletion())).toBe('--(c|)', {
        c: {
          id: 'x',
          object: 'chat.completion',
          created: 7,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: null, reasoning_content: 'r', tool_calls: [call('c', 'f', '{}')], refusal: null }, finish_reason: 'tool_calls', logprobs: null }],
          usage,
        },
      });
    });
  });

  it('passes an error through, and an unsubscription on to the source', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const error = new UpstreamStreamError('cut');
      const failing = cold<LlmClientOutput>('--#', undefined, error);
      expectObservable(failing.pipe(toChatCompletion())).toBe('--#', undefined, error);
      const slow = cold('-----(a|)', { a: { ...output, message: { role: 'assistant' as const, content: 'Hi' } } });
      expectObservable(slow.pipe(toChatCompletion()), '^--!').toBe('----');
      expectSubscriptions(slow.subscriptions).toBe('^--!');
    });
  });

  it('keeps text and a refusal; no usage when none came; stop when no finish reason; an id when none came', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('(a|)', { a: { ...output, id: '', message: { role: 'assistant' as const, content: 'Hi', refusal: 'no' } } });
      expectObservable(source.pipe(toChatCompletion())).toBe('(c|)', {
        c: {
          id: expect.stringMatching(/^chatcmpl-/),
          object: 'chat.completion',
          created: 7,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: 'no' }, finish_reason: 'stop', logprobs: null }],
        },
      });
    });
  });
});
