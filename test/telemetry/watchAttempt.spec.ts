import { TestScheduler } from 'rxjs/testing';
import { CHUNK_VALUES, recordingCall } from '../helpers/recordingCall';
import { watchAttempt } from '../../src/telemetry/watchAttempt';

const values = CHUNK_VALUES;
const scheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

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
