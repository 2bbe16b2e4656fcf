import fc from 'fast-check';
import { from, lastValueFrom, map, mergeMap, toArray, type Observable } from 'rxjs';
import { parseSse } from '../../src/operators/parseSse';
import { toSse } from '../../src/wire/toSse';
import { serverSentEvent } from '../../src/core/serverSentEvent';
import type { ServerSentEvent, SseEvent } from '../../src/core/types';

/** Strings rich in what breaks SSE framing: CR, LF, CRLF, U+2028/2029, NUL, emoji, colons, leading spaces. */
const tricky = fc
  .array(
    fc.oneof(
      fc.constantFrom('\r', '\n', '\r\n', '\u2028', '\u2029', '\0', '😀', '你好', ' ', ':', 'data: ', '[DONE]'),
      fc.string(),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

/** A one-line field value (no CR, LF or NUL), possibly with leading spaces. */
const oneLine = fc.string().map((s) => s.replace(/[\r\n\0]/g, '_'));

const encoder = new TextEncoder();

/** Writes `values` with toSse, encodes to UTF-8, cuts the bytes every `cut` bytes, and reads them back with parseSse. */
const roundTrip = <T>(values: readonly (T | ServerSentEvent<T>)[], cut: number): Promise<SseEvent[]> => {
  const bytes$: Observable<Uint8Array> = from(values).pipe(
    toSse(),
    toArray(),
    map((texts) => encoder.encode(texts.join(''))),
    mergeMap((all) => {
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < all.length; at += cut) pieces.push(all.subarray(at, at + cut));
      return from(pieces);
    }),
  );
  return lastValueFrom(bytes$.pipe(parseSse(), toArray()));
};

/** What a UTF-8 wire can carry of a JS string (lone surrogates become U+FFFD). */
const wellFormed = (s: string): string => new TextDecoder().decode(encoder.encode(s));

describe('toSse → parseSse round trip', () => {
  it('plain values (objects, tricky strings) come back as the same JSON, then [DONE]', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.jsonValue(), tricky, fc.record({ content: tricky, index: fc.nat() })), { maxLength: 8 }),
        fc.integer({ min: 1, max: 64 }),
        async (values, cut) => {
          const events = await roundTrip(values, cut);
          expect(events.map((e) => e.data)).toEqual([...values.map((v) => JSON.stringify(v)), '[DONE]']);
          expect(events.slice(0, -1).map((e) => JSON.parse(e.data) as unknown)).toEqual(
            values.map((v) => JSON.parse(JSON.stringify(v)) as unknown),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('ServerSentEvents with string data come back with the same text (line breaks normalised to LF), event and id', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            data: tricky,
            event: fc.option(
              oneLine.map((s) => `e${s}`),
              { nil: undefined },
            ),
            id: fc.option(oneLine, { nil: undefined }),
          }),
          { maxLength: 6 },
        ),
        fc.integer({ min: 1, max: 64 }),
        async (inits, cut) => {
          const events = await roundTrip(
            inits.map((init) => serverSentEvent<string>(init)),
            cut,
          );
          expect(events).toHaveLength(inits.length + 1);
          let lastId: string | undefined;
          inits.forEach((init, i) => {
            const got = events[i]!;
            expect(got.data).toBe(wellFormed(init.data).replace(/\r\n|\r/g, '\n'));
            expect(got.event).toBe(init.event === undefined ? undefined : wellFormed(init.event));
            if (init.id !== undefined) lastId = wellFormed(init.id);
            expect(got.id || undefined).toBe(lastId || undefined);
          });
          expect(events[inits.length]!.data).toBe('[DONE]');
        },
      ),
      { numRuns: 150 },
    );
  });
});
