import { ConfigError } from '../../src/core/errors';
import { formatSseEvent } from '../../src/wire/formatSseEvent';

describe('formatSseEvent', () => {
  it('writes a JSON payload as one data line ending with a blank line', () => {
    expect(formatSseEvent({ data: { a: 1, s: 'x\ny' } })).toBe('data: {"a":1,"s":"x\\ny"}\n\n');
  });

  it('writes the fields in order: comment, event, id, retry, data', () => {
    expect(formatSseEvent({ data: 'hi', retry: 1500, id: '7', event: 'chunk', comment: 'note' })).toBe(
      ': note\nevent: chunk\nid: 7\nretry: 1500\ndata: hi\n\n',
    );
  });

  it('keeps retry: 0 and id: "" (guards with !== undefined)', () => {
    expect(formatSseEvent({ data: 'x', id: '', retry: 0 })).toBe('id: \nretry: 0\ndata: x\n\n');
  });

  it('splits a string payload on CR, LF and CRLF into several data lines', () => {
    expect(formatSseEvent({ data: 'a\rb\nc\r\nd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
    expect(formatSseEvent({ data: 'end\n' })).toBe('data: end\ndata: \n\n');
  });

  it('writes an empty string payload as one empty data line (a client dispatches it)', () => {
    expect(formatSseEvent({ data: '' })).toBe('data: \n\n');
  });

  it('keeps a leading space of the payload (one space after the colon is the separator)', () => {
    expect(formatSseEvent({ data: ' indented' })).toBe('data:  indented\n\n');
  });

  it('writes null and numbers as JSON, U+2028 and emoji as they are', () => {
    expect(formatSseEvent({ data: null })).toBe('data: null\n\n');
    expect(formatSseEvent({ data: 0 })).toBe('data: 0\n\n');
    expect(formatSseEvent({ data: { t: '\u2028😀' } })).toBe('data: {"t":"\u2028😀"}\n\n');
  });

  it('writes a multi-line comment as one comment line per line', () => {
    expect(formatSseEvent({ comment: 'a\nb' })).toBe(': a\n: b\n\n');
    expect(formatSseEvent({ comment: '' })).toBe(':\n\n');
  });

  it.each(['a\nb', 'a\rb', 'a\r\nb'])('rejects an event name with a line break (%j)', (event) => {
    expect(() => formatSseEvent({ data: 'x', event })).toThrow(ConfigError);
  });

  it.each(['a\nb', 'a\rb', 'a\0b'])('rejects an id with CR, LF or NUL (%j)', (id) => {
    expect(() => formatSseEvent({ data: 'x', id })).toThrow(ConfigError);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects retry %p', (retry) => {
    expect(() => formatSseEvent({ data: 'x', retry })).toThrow(/non-negative integer/);
  });

  it('rejects a payload without a JSON form and an empty frame', () => {
    expect(() => formatSseEvent({ data: () => 1 })).toThrow(ConfigError);
    expect(() => formatSseEvent({})).toThrow(ConfigError);
  });
});
