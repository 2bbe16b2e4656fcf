import { ConfigError } from '../../src/core/errors';
import { durationMs } from '../../src/core/durationMs';

describe('durationMs', () => {
  it.each<[unknown, number]>([
    [undefined, 30_000],
    [0, 0],
    [250, 250],
    [2 ** 31 - 1, 2 ** 31 - 1],
    [2 ** 31, 0], // longer than a timer waits: none, not a timer that fires after 1 ms
    [Infinity, 0],
  ])('%p → %p (default 30000)', (value, expected) => {
    expect(durationMs('`x`', value, 30_000)).toBe(expected);
  });

  it.each<[unknown]>([[-1], [Number.NaN], [-Infinity], ['100'], [null]])('refuses %p with a ConfigError naming the option', (value) => {
    expect(() => durationMs('createChatClient: `timeouts.idle`', value, 0)).toThrow(ConfigError);
    expect(() => durationMs('createChatClient: `timeouts.idle`', value, 0)).toThrow(/^createChatClient: `timeouts\.idle` must be a number of ms ≥ 0 .*omit it for the default\.$/);
  });
});
