/**
 * createLogValues: the local stream log's compact value list (segments of joined values with offsets) gives back, at
 * every position, exactly the text appended there — across segment boundaries, for empty values, two-byte and lone
 * surrogate text, read while it grows; and a memory log holding thousands of values resumes from any position.
 */
import fc from 'fast-check';
import { createLogValues } from '../../src/store/createLogValues';
import { createMemoryStreamLog } from '../../src/store/createMemoryStreamLog';
import type { StreamLogRecord } from '../../src/store/StreamLogRecord';
import { newStreamId, readAll } from '../helpers/streamLogContractSuite';

/** Values as they are logged (any text: JSON or not, empty, non-Latin-1, unpaired surrogates). */
const value = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme-ascii', maxLength: 300 }), fc.constant(''));

describe('createLogValues', () => {
  it('gives back every value at its position, read as it grows and after', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 400 }), fc.array(fc.nat(), { maxLength: 20 }), (values, probes) => {
        const list = createLogValues();
        values.forEach((text, position) => {
          list.push(text);
          expect(list.length).toBe(position + 1);
          expect(list.at(position)).toBe(text); // the newest, before and after its segment is sealed
          for (const probe of probes.slice(0, 3)) {
            const at = probe % (position + 1);
            expect(list.at(at)).toBe(values[at]);
          }
        });
        expect(Array.from({ length: list.length }, (_, position) => list.at(position))).toEqual(values);
      }),
      { numRuns: 200 },
    );
  });

  it('holds the segment boundaries exactly (64 values a segment): first, last and the tail', () => {
    const list = createLogValues();
    const values = Array.from({ length: 64 * 3 + 5 }, (_, i) => (i % 7 === 0 ? '' : `{"n":${i},"t":"你好 ${'x'.repeat(i % 13)}"}`));
    for (const text of values) list.push(text);
    for (const position of [0, 1, 62, 63, 64, 65, 127, 128, 191, 192, 193, 196]) expect(list.at(position)).toBe(values[position]);
    expect(list.length).toBe(values.length);
  });
});

describe('createMemoryStreamLog with many values', () => {
  it('resumes from any position of a 1,000-value stream with the appended texts', async () => {
    const log = createMemoryStreamLog();
    const id = newStreamId();
    const producer = await log.open(id, { ownerKeyHash: '', wire: 'sse' });
    const values = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ message: { role: 'assistant', content: `token ${i} 你好` }, done: false, index: i }));
    const positions = values.map((text) => producer.append(text));
    expect(positions).toEqual(values.map((_, i) => i));
    const data = (records: Array<StreamLogRecord | Error>): unknown[] => records.flatMap((r) => ('kind' in r && r.kind === 'value' ? [[r.position, r.data]] : []));
    void producer.end({ kind: 'complete' });
    for (const after of [-1, 0, 62, 63, 64, 500, 998, 999]) {
      const records = await readAll(log, id, after);
      expect(data(records)).toEqual(values.slice(after + 1).map((text, i) => [after + 1 + i, text]));
      expect(records.at(-1)).toEqual({ kind: 'end', outcome: { kind: 'complete' }, lastPosition: 999 });
    }
    expect((await log.meta(id))?.lastPosition).toBe(999);
    await log.close();
  });
});
