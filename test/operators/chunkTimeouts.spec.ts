import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { TimeoutError } from '../../src/core/errors';
import { chunkTimeouts } from '../../src/operators/chunkTimeouts';
import { createDemandGate } from '../../src/core/createDemandGate';

describe('chunkTimeouts', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('errors with first_chunk when nothing arrives in time, and unsubscribes the source', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('----------a|');
      expectObservable(source.pipe(chunkTimeouts({ firstChunk: 6, idle: 3 }))).toBe(
        '------#',
        undefined,
        new TimeoutError('first_chunk', 6),
      );
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('errors with idle when the gap after a value is too long; the first value is not subject to idle', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-----a-b-------c|');
      expectObservable(source.pipe(chunkTimeouts({ firstChunk: 6, idle: 3 }))).toBe(
        '-----a-b--#',
        undefined,
        new TimeoutError('idle', 3),
      );
      expectSubscriptions(source.subscriptions).toBe('^---------!');
    });
  });

  it('silence: a source without a sign of life is given up after `silence`, long before `firstChunk`', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--------------------a|');
      expectObservable(source.pipe(chunkTimeouts({ firstChunk: 20, silence: 4, alive: () => undefined, scheduler }))).toBe(
        '----#',
        undefined,
        new TimeoutError('first_chunk', 4),
      );
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });

  it('silence: signs of life (keep-alive comments, here every 3 frames) keep a queued source waiting until firstChunk', () => {
    scheduler.run(({ cold, hot, expectObservable }) => {
      let alive: number | undefined;
      hot('---k--k--k--k--k--k--k--k').subscribe(() => (alive = scheduler.now()));
      const answers = cold('------------a|'); // first value at 12: waited for through the keep-alives
      expectObservable(answers.pipe(chunkTimeouts({ firstChunk: 20, silence: 4, alive: () => alive, scheduler }))).toBe('------------a|');
      const never = cold('-'); // keeps queuing: the first-chunk deadline still ends it
      expectObservable(never.pipe(chunkTimeouts({ firstChunk: 20, silence: 4, alive: () => alive, scheduler }))).toBe(
        '--------------------#',
        undefined,
        new TimeoutError('first_chunk', 20),
      );
    });
  });

  it('silence: signs of life that stop are given up `silence` after the last one; after the first value only idle applies', () => {
    scheduler.run(({ cold, hot, expectObservable }) => {
      let alive: number | undefined;
      hot('--k--k').subscribe(() => (alive = scheduler.now()));
      expectObservable(cold('----------------a|').pipe(chunkTimeouts({ firstChunk: 20, silence: 4, alive: () => alive, scheduler }))).toBe(
        '---------#',
        undefined,
        new TimeoutError('first_chunk', 4),
      );
      expectObservable(cold('-a---------b|').pipe(chunkTimeouts({ silence: 4, alive: () => alive, scheduler }))).toBe('-a---------b|');
    });
  });

  it('idle alone does not bound the first value', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('--------a-b|').pipe(chunkTimeouts({ idle: 3 }))).toBe('--------a-b|');
    });
  });

  it('errors with total when the whole stream is too slow', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-d-e|');
      expectObservable(source.pipe(chunkTimeouts({ idle: 5, total: 6 }))).toBe(
        '-a-b-c#',
        undefined,
        new TimeoutError('total', 6),
      );
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('a deadline that passes while the demand gate is closed starts over', () => {
    const demand = createDemandGate();
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a--------b|');
      scheduler.schedule(() => demand.pause(), 2);
      scheduler.schedule(() => demand.resume(), 7);
      // idle 3 from t=1: passes at 4 while the gate is closed → re-armed; passes again at 7, after the gate re-opened → error
      expectObservable(source.pipe(chunkTimeouts({ idle: 3, demand }))).toBe(
        '-a-----#',
        undefined,
        new TimeoutError('idle', 3),
      );
    });
  });

  it('counts idle from the latest value, however many values came before', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-d-e-f--------g|');
      // each gap (2) is under idle (3): the deadline runs from f (t=11) and passes at 14
      expectObservable(source.pipe(chunkTimeouts({ firstChunk: 2, idle: 3 }))).toBe(
        '-a-b-c-d-e-f--#',
        undefined,
        new TimeoutError('idle', 3),
      );
      expectSubscriptions(source.subscriptions).toBe('^-------------!');
    });
  });

  it('a gap exactly as long as idle is not a timeout when the value comes first; a first chunk ends the first-chunk deadline', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('a--b--c|').pipe(chunkTimeouts({ idle: 3 }))).toBe('a--b--c|');
      expectObservable(cold('-a------------b|').pipe(chunkTimeouts({ firstChunk: 2 }))).toBe('-a------------b|');
    });
  });

  it('a re-armed deadline starts when it passed, and a later value moves it again', () => {
    const demand = createDemandGate();
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-b----c--------d|');
      scheduler.schedule(() => demand.pause(), 5);
      scheduler.schedule(() => demand.resume(), 7);
      // idle 3 from b (t=3): passes at 6, gate closed → re-armed to 9; c at 8 moves it to 11; passes at 11, gate open
      expectObservable(source.pipe(chunkTimeouts({ idle: 3, demand }))).toBe(
        '-a-b----c--#',
        undefined,
        new TimeoutError('idle', 3),
      );
    });
  });

  it('the first-chunk deadline also starts over while the gate is closed', () => {
    const demand = createDemandGate();
    scheduler.run(({ cold, expectObservable }) => {
      scheduler.schedule(() => demand.pause(), 1);
      scheduler.schedule(() => demand.resume(), 6);
      // firstChunk 4: passes at 4 (closed) → re-armed to 8; passes at 8 with the gate open
      expectObservable(cold('------------a|').pipe(chunkTimeouts({ firstChunk: 4, demand }))).toBe(
        '--------#',
        undefined,
        new TimeoutError('first_chunk', 4),
      );
    });
  });

  it('passes values, errors and completion through, and releases timers on completion', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-#', undefined, new Error('boom'));
      expectObservable(source.pipe(chunkTimeouts({ firstChunk: 10, idle: 10, total: 100 }))).toBe(
        '-a-b-#',
        undefined,
        new Error('boom'),
      );
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('does not break unsubscription chains', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-d-');
      const result = new Observable<string>((subscriber) =>
        source.pipe(chunkTimeouts({ idle: 5 })).subscribe(subscriber),
      );
      expectObservable(result, '^--!').toBe('-a-');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('stops listening to a synchronous firehose when unsubscribed', () => {
    let emitted = 0;
    const firehose = new Observable<number>((subscriber) => {
      for (let i = 0; !subscriber.closed; i++) {
        emitted += 1;
        subscriber.next(i);
      }
    });
    const seen: number[] = [];
    firehose.pipe(chunkTimeouts({ firstChunk: 1000, idle: 1000 }), take(3)).subscribe((v) => seen.push(v));
    expect(seen).toEqual([0, 1, 2]);
    expect(emitted).toBe(3);
  });
});
