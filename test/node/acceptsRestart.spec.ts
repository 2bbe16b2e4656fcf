import { acceptsRestart } from '../../src/serve/acceptsRestart';

describe('acceptsRestart (the Chatflux-Accept-Restart request header)', () => {
  it.each<[string | readonly string[] | null | undefined, boolean]>([
    ['true', true],
    [' TRUE ', true],
    ['True', true],
    [['true', 'false'], true], // node's array form: the first value
    ['false', false],
    ['1', false], // only the word: a client that means it says so
    ['yes', false],
    ['', false],
    [[], false],
    [null, false], // web Headers.get: absent
    [undefined, false], // node: absent
  ])('%j → %s', (value, expected) => {
    expect(acceptsRestart(value)).toBe(expected);
  });
});
