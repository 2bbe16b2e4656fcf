import fc from 'fast-check';
import { streamEventId } from '../../src/serve/streamEventId';
import { createStreamId } from '../../src/serve/createStreamId';

describe('streamEventId', () => {
  it('reads back the id it writes, for any stream id and position', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (position) => {
        const id = createStreamId();
        expect(streamEventId.parse(streamEventId.of(id, position))).toEqual({ id, position });
      }),
      { numRuns: 200 },
    );
  });

  it('makes 128-bit URL-safe stream ids, distinct across many refills of its random pool', () => {
    const ids = new Set(Array.from({ length: 5000 }, createStreamId));
    expect(ids.size).toBe(5000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it.each([undefined, '', 'done', '42', 'abc:', ':1', 'abc:01', 'abc:-1', 'a b:1', 'abc:1.5', `${'a'.repeat(65)}:1`, `abc:${'9'.repeat(17)}`, 'abc:1\n'])(
    'ignores a Last-Event-ID that is not ours: %j',
    (header) => {
      expect(streamEventId.parse(header)).toBeUndefined();
    },
  );

  it('ignores any string a client may send, without throwing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        const parsed = streamEventId.parse(header);
        if (parsed !== undefined) expect(streamEventId.of(parsed.id, parsed.position)).toBe(header);
      }),
      { numRuns: 500 },
    );
  });
});
