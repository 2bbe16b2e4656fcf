import { createSseFastPath } from '../../src/operators/createSseFastPath';

const setup = (maxEventSize = 100) => {
  const data: string[] = [];
  let tooLarge = 0;
  const fast = createSseFastPath(maxEventSize, (d) => data.push(d) > 0, () => tooLarge++);
  return { fast, data, tooLarge: () => tooLarge };
};

describe('createSseFastPath', () => {
  it('takes one-line data events, also when one is split across texts (line, its LF, its blank line)', () => {
    const { fast, data } = setup();
    expect(fast.take('data: a\n\nda')).toBeUndefined();
    expect(fast.take('ta: b')).toBeUndefined();
    expect(fast.take('c\n')).toBeUndefined();
    expect(fast.take('\ndata: d\n')).toBeUndefined();
    expect(fast.take('\n')).toBeUndefined();
    expect(data).toEqual(['a', 'bc', 'd']);
    expect(fast.active).toBe(true);
  });

  it('hands the text to the general parser from the pending event on, at a second line or a CR, until resumed', () => {
    const { fast, data } = setup();
    expect(fast.take('data: a\n\ndata: b')).toBeUndefined();
    expect(fast.take('\ndata: c\n\n')).toBe('data: b\ndata: c\n\n');
    expect(fast.active).toBe(false);
    fast.resume();
    expect(fast.take('data: x')).toBeUndefined();
    expect(fast.take('\r\n\r\n')).toBe('data: x\r\n\r\n');
    expect(data).toEqual(['a']);
  });

  it('hands over the rest of a text at its first other block (a comment, a field)', () => {
    const { fast, data } = setup();
    expect(fast.take('data: a\n\n: ping\n\n')).toBe(': ping\n\n');
    expect(data).toEqual(['a']);
  });

  it('reports a pending event that outgrows the limit', () => {
    const { fast, tooLarge } = setup(10);
    expect(fast.take('data: 0123')).toBeUndefined();
    expect(tooLarge()).toBe(0);
    expect(fast.take('456789')).toBeUndefined();
    expect(tooLarge()).toBe(1);
  });

  it('stops when onData says so, leaving nothing for the general parser', () => {
    const data: string[] = [];
    const fast = createSseFastPath(100, (d) => data.push(d) < 1, () => undefined);
    expect(fast.take('data: a\n\ndata: b\n\n')).toBeUndefined();
    expect(data).toEqual(['a']);
  });
});
