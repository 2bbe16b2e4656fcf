import { TestScheduler } from 'rxjs/testing';
import { AnswerFailedError, NetworkError, TimeoutError, UpstreamHttpError } from '../../src/core/errors';
import type { ChatCompletionChunk } from '../../src/core/schemas/upstream';
import { continueAfterCut, type ContinuationRequest, type ContinuationSegment } from '../../src/operators/continueAfterCut';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import { chunkOf } from '../helpers/chunkOf';

describe('continueAfterCut', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const cut = new NetworkError('reset', { midResponse: true });
  const role = chunkOf.delta({ role: 'assistant', content: '' });
  const v = {
    r: role,
    a: chunkOf.content('Hel'),
    b: chunkOf.content('lo '),
    c: chunkOf.content('wor'),
    d: chunkOf.content('ld'),
    f: chunkOf.finish('stop', 0, { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }),
  };

  it('splices the continuation after a cut: the text so far is asked for, nothing twice, nothing missing', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('r-a-b-#', v, cut);
      const rest = cold('      r-c-d-f|', v);
      const asked: ContinuationRequest[] = [];
      const result = source.pipe(
        continueAfterCut({
          continueWith: (request) => {
            asked.push(request);
            return rest;
          },
        }),
      );
      expectObservable(result).toBe('r-a-b-r-c-d-f|', v);
      expectSubscriptions(rest.subscriptions).toBe('------^------!');
      scheduler.flush();
      expect(asked).toEqual([{ content: 'Hello ', reasoning: '', error: cut, continuation: 1 }]);
    });
  });

  it('gives the contract one index sequence (through toOutputChunks)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a-b-#', v, cut);
      const rest = cold('    r-c-d-f|', v);
      const result = source.pipe(continueAfterCut({ continueWith: () => rest }), toOutputChunks());
      const chunk = (content: string, index: number) => ({ message: { role: 'assistant', content }, done: false, index });
      expectObservable(result).toBe('a-b---c-d--(f|)', {
        a: chunk('Hel', 0),
        b: chunk('lo ', 1),
        c: chunk('wor', 2),
        d: chunk('ld', 3),
        f: {
          message: { role: 'assistant', content: '' },
          done: true,
          index: 4,
          finish_reason: 'stop',
          usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
        },
      });
    });
  });

  it('continues a failed finish (insufficient_system_resource) without forwarding its finish reason or usage', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const usage = { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 };
      const failedFinish = chunkOf.finish('insufficient_system_resource', 0, usage);
      const source = cold('a-x|', { ...v, x: failedFinish });
      const rest = cold('   c-f|', v);
      const segments: ContinuationSegment[] = [];
      const result = source.pipe(continueAfterCut({ continueWith: () => rest, onSegment: (s) => segments.push(s) }));
      const stripped = { ...failedFinish, choices: [{ index: 0, delta: {}, finish_reason: null }] };
      delete (stripped as Partial<ChatCompletionChunk>).usage;
      expectObservable(result).toBe('a-xc-f|', { ...v, x: stripped });
      scheduler.flush();
      expect(segments.map((s) => [s.segment, s.outcome, s.usage])).toEqual([
        [0, 'cut', usage],
        [1, 'complete', v.f.usage],
      ]);
      expect(segments[0]!.error).toBeInstanceOf(AnswerFailedError);
    });
  });

  it("surfaces the cut's own error when the continuation delivers nothing (a refused prefill), or nobody can continue", () => {
    scheduler.run(({ cold, expectObservable }) => {
      const refused = new UpstreamHttpError(400, 'prefill not supported');
      const source = cold('a-#', v, cut);
      expectObservable(source.pipe(continueAfterCut({ continueWith: () => cold('-#', undefined, refused) }))).toBe('a--#', v, cut);
      expectObservable(source.pipe(continueAfterCut({ continueWith: () => undefined }))).toBe('a-#', v, cut);
    });
  });

  it('does not continue a stream that failed before its first chunk (nothing began: not a cut)', () => {
    const silent = new TimeoutError('first_chunk', 5);
    const continueWith = jest.fn(() => undefined);
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<ChatCompletionChunk>('--#', undefined, silent).pipe(continueAfterCut({ continueWith }))).toBe('--#', undefined, silent);
      expectObservable(cold<ChatCompletionChunk>('#', undefined, cut).pipe(continueAfterCut({ continueWith }))).toBe('#', undefined, cut);
    });
    expect(continueWith).not.toHaveBeenCalled();
  });

  it('ends the continuation when the result is unsubscribed', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-#', v, cut);
      const rest = cold('    -c-d-f|', v);
      expectObservable(source.pipe(continueAfterCut({ continueWith: () => rest })), '^----!').toBe('a--c-', v);
      expectSubscriptions(source.subscriptions).toBe('^-!');
      expectSubscriptions(rest.subscriptions).toBe('--^--!');
    });
  });

  it('errors with what `continueWith`, `isCut` or `onSegment` throws after a cut (not lost as an unhandled error)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const bug = new Error('bug in a callback');
      const source = cold('a-#', v, cut);
      const rest = cold('-c|', v);
      const fails = (): never => {
        throw bug;
      };
      expectObservable(source.pipe(continueAfterCut({ continueWith: fails }))).toBe('a-#', v, bug);
      expectObservable(source.pipe(continueAfterCut({ continueWith: () => rest, isCut: fails }))).toBe('a-#', v, bug);
      expectObservable(source.pipe(continueAfterCut({ continueWith: () => rest, onSegment: fails }))).toBe('a-#', v, bug);
    });
  });

  it('continues again after a second cut, with all the text so far, up to maxContinuations', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const idle = new TimeoutError('idle', 5);
      const asked: string[] = [];
      const parts = [cold('b-#', v, idle), cold('c-d-f|', v)];
      const result = cold('a-#', v, cut).pipe(
        continueAfterCut({
          continueWith: ({ content }) => {
            asked.push(content);
            return parts.shift();
          },
        }),
      );
      expectObservable(result).toBe('a-b-c-d-f|', v);
      scheduler.flush();
      expect(asked).toEqual(['Hel', 'Hello ']);
    });
  });

  it('with maxContinuations: 0, a cut surfaces as it is', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('a-#', v, cut).pipe(continueAfterCut({ maxContinuations: 0, continueWith: () => cold('f|', v) }))).toBe('a-#', v, cut);
    });
  });

  it('drops the continuation’s reasoning once the text has begun, and keeps reasoning apart from the text', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const thought = chunkOf.delta({ reasoning_content: 'hmm' });
      const rethought = chunkOf.delta({ content: null, reasoning_content: 'again' });
      const asked: ContinuationRequest[] = [];
      const result = cold('t-a-#', { ...v, t: thought }, cut).pipe(
        continueAfterCut({
          continueWith: (request) => {
            asked.push(request);
            return cold('u-c-f|', { ...v, u: rethought });
          },
        }),
      );
      expectObservable(result).toBe('t-a-u-c-f|', { ...v, t: thought, u: chunkOf.delta({ content: null }) });
      scheduler.flush();
      expect(asked[0]).toMatchObject({ content: 'Hel', reasoning: 'hmm' });
    });
  });

  it('does not continue tool calls, other choices, or errors that are not cuts', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const tool = chunkOf.tools([{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{' } }]);
      const never = () => cold('c|', v);
      expectObservable(cold('t-#', { t: tool }, cut).pipe(continueAfterCut({ continueWith: never }))).toBe('t-#', { t: tool }, cut);
      const other = chunkOf.content('x', 1);
      expectObservable(cold('o-#', { o: other }, cut).pipe(continueAfterCut({ continueWith: never }))).toBe('o-#', { o: other }, cut);
      const total = new TimeoutError('total', 9);
      expectObservable(cold('a-#', v, total).pipe(continueAfterCut({ continueWith: never }))).toBe('a-#', v, total);
    });
  });
});
