import { tap, type MonoTypeOperatorFunction } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { watchNotifications, type WatchNotificationsConfig } from '../../src/telemetry/watchNotifications';

type Handler = keyof WatchNotificationsConfig<string>;
type Operator = (config: WatchNotificationsConfig<string>) => MonoTypeOperatorFunction<string>;

/**
 * Runs `marbles` through the operator made with recording handlers (`throwOn`'s throws) and returns what the handlers
 * were told, with their frames, and the output's notifications, with theirs.
 */
function observe(operator: Operator, marbles: string, unsubscription: string | undefined, throwOn: Handler | undefined) {
  let output: unknown;
  const s = new TestScheduler((actual) => (output = actual));
  const log: string[] = [];
  const note = (what: Handler, detail = ''): void => {
    log.push(`${s.now()} ${what}${detail}`);
    if (what === throwOn) throw new Error(`${what} threw`);
  };
  const handlers: WatchNotificationsConfig<string> = {
    subscribe: () => note('subscribe'),
    next: (value) => note('next', ` ${value}`),
    error: (error) => note('error', ` ${String(error)}`),
    complete: () => note('complete'),
    unsubscribe: () => note('unsubscribe'),
  };
  s.run(({ cold, expectObservable }) => {
    expectObservable(cold(marbles, { a: 'a', b: 'b' }, 'boom').pipe(operator(handlers)), unsubscription).toBe('');
  });
  return { log, output };
}

describe('watchNotifications (marbles): the handlers and the output of `tap`', () => {
  it.each<[string, string, string | undefined, Handler | undefined, string[]]>([
    ['an error', '--a--b--#', undefined, undefined, ['0 subscribe', '2 next a', '5 next b', '8 error boom']],
    ['a completion', '--a--b--|', undefined, undefined, ['0 subscribe', '2 next a', '5 next b', '8 complete']],
    ['a subscriber that leaves first', '--a--b-----', '^------!', undefined, ['0 subscribe', '2 next a', '5 next b', '7 unsubscribe']],
    ['a next handler that throws', '--a--b--|', undefined, 'next', ['0 subscribe', '2 next a', '2 unsubscribe']],
    ['an error handler that throws', '--a--#', undefined, 'error', ['0 subscribe', '2 next a', '5 error boom']],
    ['a complete handler that throws', '--a--|', undefined, 'complete', ['0 subscribe', '2 next a', '5 complete']],
  ])('%s', (_name, marbles, unsubscription, throwOn, expected) => {
    const ours = observe((config) => watchNotifications(config), marbles, unsubscription, throwOn);
    expect(ours.log).toEqual(expected);
    expect(ours).toEqual(observe((config) => tap(config), marbles, unsubscription, throwOn));
  });
});
