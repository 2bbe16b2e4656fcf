import { TestScheduler } from 'rxjs/testing';
import { subscribeAhead } from '../../src/serve/subscribeAhead';

describe('subscribeAhead (marbles)', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('subscribes the source at once, holds what it emits until the consumer comes, replays it in order, then passes the live ones', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--b-------c--|');
      const ahead = subscribeAhead(source);
      expectObservable(ahead.source, '-------^').toBe('-------(ab)--c--|');
      expectSubscriptions(source.subscriptions).toBe('^---------------!');
    });
  });

  it('holds an error (and a completion) that came before the consumer, and delivers it when the consumer comes', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const failing = subscribeAhead(cold('--a-#', undefined, new Error('upstream')));
      expectObservable(failing.source, '------^').toBe('------(a#)', undefined, new Error('upstream'));
      const done = subscribeAhead(cold('-a|'));
      expectObservable(done.source, '----^').toBe('----(a|)');
    });
  });

  it("the consumer's unsubscription unsubscribes the source (an upstream request is aborted)", () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--b--c--|');
      const ahead = subscribeAhead(source);
      expectObservable(ahead.source, '----^--!').toBe('----ab');
      expectSubscriptions(source.subscriptions).toBe('^------!');
    });
  });

  it('cancel (the consumer will not come) unsubscribes the source and drops what it held', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a--b--|');
      const ahead = subscribeAhead(source);
      cold('---x|').subscribe(() => ahead.cancel());
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectObservable(ahead.source, '-----^').toBe('------'); // nothing held is replayed, nothing live comes
    });
  });
});
