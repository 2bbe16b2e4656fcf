import { takeDataEvents } from '../../src/operators/takeDataEvents';

/** Runs takeDataEvents and returns its result and the data it handed over. */
const take = (text: string, from = 0, stopAfter = Infinity): { at: number; data: string[] } => {
  const data: string[] = [];
  const at = takeDataEvents(text, from, (d) => {
    data.push(d);
    return data.length < stopAfter;
  });
  return { at, data };
};

describe('takeDataEvents', () => {
  it('takes every one-line data event and returns text.length when all was taken', () => {
    expect(take('data: a\n\ndata: {"b":1}\n\ndata: \n\n')).toEqual({ at: 32, data: ['a', '{"b":1}', ''] });
    expect(take('')).toEqual({ at: 0, data: [] });
  });

  it('starts at `from`', () => {
    expect(take('xxdata: a\n\n', 2)).toEqual({ at: 11, data: ['a'] });
  });

  it('returns the index of a block it does not take (for the general parser), as is', () => {
    expect(take('data: a\n\nevent: x\ndata: b\n\n')).toEqual({ at: 9, data: ['a'] });
    expect(take(': keep-alive\n\n')).toEqual({ at: 0, data: [] });
    expect(take('data:a\n\n')).toEqual({ at: 0, data: [] }); // no space after the colon
    expect(take('data: a\ndata: b\n\n')).toEqual({ at: 0, data: [] }); // several lines
    expect(take('data: a\n\nid: 1\n')).toEqual({ at: 9, data: ['a'] });
  });

  it('returns -(at + 1) when the rest is the start of a one-line data event still waiting for its end', () => {
    expect(take('data: a\n\ndata: b')).toEqual({ at: -10, data: ['a'] }); // the line goes on
    expect(take('data: a\n\ndata: b\n')).toEqual({ at: -10, data: ['a'] }); // its blank line is to come
    expect(take('data: a\n\ndat')).toEqual({ at: -10, data: ['a'] }); // a prefix of `data: `
    expect(take('data')).toEqual({ at: -1, data: [] });
    expect(take('data: a\n\nx')).toEqual({ at: 9, data: ['a'] }); // not a prefix of `data: `
  });

  it('stops when onData returns false, returning the index after the stopping event', () => {
    expect(take('data: a\n\ndata: b\n\ndata: c\n\n', 0, 2)).toEqual({ at: 18, data: ['a', 'b'] });
  });
});
