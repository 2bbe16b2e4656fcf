import { Observable, map, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError, TimeoutError, UpstreamHttpError } from '../../src/core/errors';
import { toSse } from '../../src/wire/toSse';
import { serverSentEvent } from '../../src/core/serverSentEvent';
import type { ServerSentEvent } from '../../src/core/types';

const DONE = 'data: [DONE]\n\n';
const PING = ': ping\n\n';

describe('toSse', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('writes data: <json> per value, then data: [DONE] at completion', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-|', {
        a: { message: { role: 'assistant', content: "I'm " }, done: false, index: 0 },
        b: 'a\nstring',
      });
      expectObservable(source.pipe(toSse())).toBe('-A-B-(D|)', {
        A: 'data: {"message":{"role":"assistant","content":"I\'m "},"done":false,"index":0}\n\n',
        B: 'data: "a\\nstring"\n\n',
        D: DONE,
      });
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('writes an empty source as data: [DONE] alone', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('--|').pipe(toSse())).toBe('--(D|)', { D: DONE });
    });
  });

  it('writes a ServerSentEvent with its own fields', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold<ServerSentEvent<unknown>>('-a-b-|', {
        a: serverSentEvent<unknown>({ data: { x: 1 }, id: '', retry: 0, event: 'chunk' }),
        b: serverSentEvent<unknown>({ data: 'two\nlines' }),
      });
      expectObservable(source.pipe(toSse())).toBe('-A-B-(D|)', {
        A: 'event: chunk\nid: \nretry: 0\ndata: {"x":1}\n\n',
        B: 'data: two\ndata: lines\n\n',
        D: DONE,
      });
    });
  });

  it('writes a plain object with a data field as JSON (only branded events are frames)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-|', { a: { data: 'x', event: 'y' } }).pipe(toSse())).toBe('-A-(D|)', {
        A: 'data: {"data":"x","event":"y"}\n\n',
        D: DONE,
      });
    });
  });

  it('turns an error after some values into event: error + data: [DONE], then completes', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-#', { a: 1 }, new TimeoutError('idle', 5000));
      expectObservable(source.pipe(toSse())).toBe('-A-(E|)', {
        A: 'data: 1\n\n',
        E: 'event: error\ndata: {"message":"upstream idle timeout after 5000 ms","type":"timeout_error","code":"timeout"}\n\ndata: [DONE]\n\n',
      });
    });
  });

  it('turns an error before the first value into the error frames, redacting secrets, and calls onError', () => {
    const seen: unknown[] = [];
    const error = new UpstreamHttpError(500, 'upstream 500 for Bearer abcdefgh.ijk');
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('#', undefined, error).pipe(toSse({ onError: (e) => seen.push(e) }))).toBe('(E|)', {
        E: 'event: error\ndata: {"message":"upstream 500 for Bearer [redacted]","type":"upstream_error","code":"upstream_http"}\n\ndata: [DONE]\n\n',
      });
    });
    expect(seen).toEqual([error]);
  });

  it('refuses an event field with a line break before writing anything of it, as an error frame', () => {
    const seen: unknown[] = [];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-|', {
        a: serverSentEvent({ data: 1 }),
        b: serverSentEvent({ data: 2, event: 'x\ny' }),
        c: serverSentEvent({ data: 3 }),
      });
      expectObservable(source.pipe(toSse({ onError: (e) => seen.push(e) }))).toBe('-A-(E|)', {
        A: 'data: 1\n\n',
        E: 'event: error\ndata: {"message":"internal server error","type":"server_error","code":"internal_error"}\n\ndata: [DONE]\n\n',
      });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
    expect(seen[0]).toBeInstanceOf(ConfigError);
  });

  it('writes : ping after each heartbeatMs of silence, including before the first value, never inside a frame', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-----------a--b-----|', { a: 1, b: 2 });
      expectObservable(source.pipe(toSse({ heartbeatMs: 4, scheduler }))).toBe('----p---p--A--B---p-(D|)', {
        p: PING,
        A: 'data: 1\n\n',
        B: 'data: 2\n\n',
        D: DONE,
      });
      expectSubscriptions(source.subscriptions).toBe('^-------------------!');
    });
  });

  it('stops the heartbeat after an error frame and on unsubscription', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const error = new TimeoutError('idle', 9);
      expectObservable(cold('------#', undefined, error).pipe(toSse({ heartbeatMs: 2, scheduler }))).toBe(
        '--p-p-(E|)',
        {
          p: PING,
          E: 'event: error\ndata: {"message":"upstream idle timeout after 9 ms","type":"timeout_error","code":"timeout"}\n\ndata: [DONE]\n\n',
        },
      );
      expectObservable(cold('----------|').pipe(toSse({ heartbeatMs: 2, scheduler })), '^----!').toBe('--p-p', {
        p: PING,
      });
    });
  });

  it('rejects a bad heartbeatMs when the operator is created', () => {
    expect(() => toSse({ heartbeatMs: 0 })).toThrow(ConfigError);
  });

  it('does not break unsubscription chains', () => {
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-b-c-|', { a: 1, b: 2, c: 3 });
      const result = source.pipe(
        map((x) => x),
        toSse({ heartbeatMs: 100, scheduler }),
        map((x) => x),
      );
      expectObservable(result, '^--!').toBe('-A-', { A: 'data: 1\n\n' });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it.each([{}, { heartbeatMs: 1000 }])('stops listening to a synchronous firehose when unsubscribed (%p)', (config) => {
    let sent = 0;
    const firehose = new Observable<number>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 1000; i++) {
        sent += 1;
        subscriber.next(i);
      }
    });
    const got: string[] = [];
    firehose.pipe(toSse(config), take(3)).subscribe((text) => got.push(text));
    expect(got).toEqual(['data: 0\n\n', 'data: 1\n\n', 'data: 2\n\n']);
    expect(sent).toBe(3);
  });
});
