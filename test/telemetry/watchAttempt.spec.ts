import { TestScheduler } from 'rxjs/testing';
import type { ChatCompletionChunk } from '../../src/core/schemas/index';
import type { CompletionCall } from '../../src/telemetry/CompletionCall';
import { watchAttempt } from '../../src/telemetry/watchAttempt';

const chunk = (id: string): ChatCompletionChunk => ({ id, object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] }) as ChatCompletionChunk;
const values = { a: chunk('a'), b: chunk('b') };
const scheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** A call that records what it is told, with the frame it was told at. */
const recordingCall = (now: () => number): CompletionCall & { log: string[] } => {
  const log: string[] = [];
  return {
    log,
    headers: () => ({}),
    attempt: () => void log.push(`${now()} attempt`),
    chunk: (c) => void log.push(`${now()} chunk ${c.id}`),
    attemptFailed: (error) => void log.push(`${now()} failed ${String(error)}`),
    end: (outcome) => void log.push(`${now()} end ${outcome === undefined ? 'ok' : String(outcome)}`),
  };
};

describe('watchAttempt (marbles)', () => {
  it('passes the chunks through and tells the call of the attempt, each chunk and the failure, in time', () => {
    const s = scheduler();
    const call = recordingCall(() => s.now());
    s.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--b--#', values, 'boom');
      expectObservable(source.pipe(watchAttempt(call))).toBe('--a--b--#', values, 'boom');
      expectSubscriptions(source.subscriptions).toBe('^-------!');
    });
    expect(call.log).toEqual(['0 attempt', '2 chunk a', '5 chunk b', '8 failed boom']);
  });

  it('each resubscription is an attempt; without a call it is the identity', () => {
    const s = scheduler();
    const call = recordingCall(() => s.now());
    s.run(({ cold, expectObservable }) => {
      const source = cold('-a|', values);
      const watched = source.pipe(watchAttempt(call));
      expectObservable(watched).toBe('-a|', values);
      expectObservable(watched, '---^').toBe('----a|', values);
      expectObservable(source.pipe(watchAttempt(undefined))).toBe('-a|', values);
    });
    expect(call.log).toEqual(['0 attempt', '1 chunk a', '3 attempt', '4 chunk a']);
  });
});
