/**
 * The cap of an answer held whole (`toOutput`, `accumulateDeltas`): past `maxAnswerChars` the operator errors with
 * `StreamProtocolError('answer_too_large')` at that chunk and unsubscribes from the source.
 */
import type { OperatorFunction } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { isConfigError } from '../../src/core/errors';
import type { ChatCompletionChunk, ChunkChoice, ChunkDelta } from '../../src/core/schemas';
import { accumulateDeltas } from '../../src/operators/accumulateDeltas';
import { DEFAULT_MAX_ANSWER_CHARS } from '../../src/operators/defaultMaxAnswerChars';
import { toOutput } from '../../src/operators/toOutput';

const chunk = (d: ChunkDelta, extra: Partial<ChunkChoice> = {}): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: d, ...extra }],
});
const tooLarge = expect.objectContaining({ name: 'StreamProtocolError', code: 'answer_too_large' });

type Operator = (maxAnswerChars?: number) => OperatorFunction<ChatCompletionChunk, unknown>;
const OPERATORS: Array<[string, Operator]> = [
  ['toOutput', (maxAnswerChars) => toOutput(maxAnswerChars === undefined ? {} : { maxAnswerChars })],
  ['accumulateDeltas', (maxAnswerChars) => accumulateDeltas(maxAnswerChars === undefined ? {} : { maxAnswerChars })],
];

describe.each(OPERATORS)('%s with maxAnswerChars', (_name, operator) => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('errors with answer_too_large at the chunk that passes the cap, and unsubscribes from the source', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      // Each chunk: 10 characters of content and 1 for its delta object; the third passes 30.
      const source = cold('-a-b-c-d-|', {
        a: chunk({ content: '0123456789' }),
        b: chunk({ reasoning_content: '0123456789' }),
        c: chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":"bc"}' } }] }),
        d: chunk({ content: 'never read' }),
      });
      const result = source.pipe(operator(30));
      if (_name === 'toOutput') expectObservable(result).toBe('-----#', undefined, tooLarge);
      else expectObservable(result).toBe('-a-b-#', { a: expect.anything(), b: expect.anything() }, tooLarge);
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('counts log probabilities too', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const logprobs = { content: Array.from({ length: 20 }, () => ({ token: 'x', logprob: -1, bytes: [120] })) };
      const source = cold('-a-|', { a: chunk({ content: 'x' }, { logprobs }) });
      expectObservable(source.pipe(operator(50))).toBe('-#', undefined, tooLarge);
    });
  });

  it('passes an answer within the cap, and any answer with 0 (no cap)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-b-|', { a: chunk({ content: '0123456789' }), b: chunk({ content: 'abc' }, { finish_reason: 'stop' }) });
      const within = source.pipe(operator(30));
      if (_name === 'toOutput') expectObservable(within).toBe('-----(o|)', { o: expect.objectContaining({ done: true }) });
      else expectObservable(within).toBe('-a-b-|', { a: expect.anything(), b: expect.anything() });
      expectObservable(source.pipe(operator(0))).toBe(_name === 'toOutput' ? '-----(o|)' : '-a-b-|', {
        o: expect.anything(),
        a: expect.anything(),
        b: expect.anything(),
      });
    });
  });

  it('has a default cap of 16 Mi characters (as much as one event may carry)', () => {
    expect(DEFAULT_MAX_ANSWER_CHARS).toBe(16 * 1024 * 1024);
    scheduler.run(({ cold, expectObservable }) => {
      // Three chunks of 4 Mi characters (and 1 for each delta object) pass; the fourth passes 16 Mi.
      const piece = 'x'.repeat(4 * 1024 * 1024);
      const source = cold('-a-a-a-a-a-|', { a: chunk({ content: piece }) });
      const marble = _name === 'toOutput' ? '-------#' : '-a-a-a-#';
      expectObservable(source.pipe(operator())).toBe(marble, { a: expect.anything() }, tooLarge);
    });
  });

  it.each([-1, 1.5, Number.NaN])('rejects maxAnswerChars %p with a ConfigError', (value) => {
    let caught: unknown;
    try {
      operator(value);
    } catch (error) {
      caught = error;
    }
    expect(isConfigError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/maxAnswerChars/);
  });
});
