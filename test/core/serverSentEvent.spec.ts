import { isServerSentEvent } from '../../src/core/isServerSentEvent';
import { serverSentEvent } from '../../src/core/serverSentEvent';

describe('serverSentEvent', () => {
  it('returns a branded copy with the same fields', () => {
    const init = { data: { a: 1 }, event: 'chunk', id: '1', retry: 0 };
    const event = serverSentEvent(init);
    expect(event).not.toBe(init);
    expect(event).toMatchObject(init);
    expect(isServerSentEvent(event)).toBe(true);
    expect(isServerSentEvent(init)).toBe(false);
  });

  it('keeps the brand through a spread (the brand is an enumerable symbol)', () => {
    expect(isServerSentEvent({ ...serverSentEvent({ data: 'x' }), id: '2' })).toBe(true);
  });

  it('is false for plain values that look like events', () => {
    for (const value of [{ data: 'x' }, null, undefined, 'data: x', 1, [serverSentEvent({ data: 1 })]]) {
      expect(isServerSentEvent(value)).toBe(false);
    }
  });

  it('serialises to JSON without the brand', () => {
    expect(JSON.stringify(serverSentEvent({ data: 1, id: 'a' }))).toBe('{"data":1,"id":"a"}');
  });
});
