/**
 * Property tests: for generated event streams (ASCII, CJK, emoji, NUL, BOM characters; CR, LF and CRLF mixed;
 * comments, ids, retry and unknown fields; an optional unterminated tail), parseSse gives the events of the WHATWG
 * reference (test/helpers/whatwgSse.ts) however the bytes or the text are split — inside multi-byte characters,
 * between CR and LF, and at the very end.
 */
import fc from 'fast-check';
import { from, lastValueFrom, toArray } from 'rxjs';
import { parseSse } from '../../src/operators/parseSse';
import type { SseEvent } from '../../src/core/types';
import { whatwgSse } from '../helpers/whatwgSse';

const run = (
  chunks: readonly (string | Uint8Array)[],
  invalidUtf8: 'error' | 'replace' = 'error',
): Promise<SseEvent[]> => lastValueFrom(from(chunks).pipe(parseSse({ invalidUtf8 }), toArray()));

const char = fc.constantFrom(
  'a',
  'b',
  'Z',
  '0',
  ' ',
  ':',
  '你',
  '好',
  '😀',
  '🧪',
  'é',
  '\0',
  '\ufeff',
  '\t',
  '"',
  '{',
  '}',
);
const value = fc.string({ unit: char, maxLength: 10 });
const eol = fc.constantFrom('\n', '\r', '\r\n');

type Line = { kind: 'data' | 'id' | 'other'; text: string };
const line: fc.Arbitrary<Line> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom('data:', 'data: ', 'data:  '), value)
      .map(([f, v]): Line => ({ kind: 'data', text: f + v })),
  },
  { weight: 1, arbitrary: fc.constant<Line>({ kind: 'data', text: 'data' }) },
  { weight: 1, arbitrary: value.map((v): Line => ({ kind: 'other', text: `event: ${v}` })) },
  { weight: 1, arbitrary: value.map((v): Line => ({ kind: 'id', text: `id: ${v}` })) },
  { weight: 1, arbitrary: fc.constant<Line>({ kind: 'id', text: 'id' }) },
  { weight: 2, arbitrary: value.map((v): Line => ({ kind: 'other', text: `:${v}` })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Line>({ kind: 'other', text: 'retry: 1000' }, { kind: 'other', text: 'retry: x' }),
  },
  { weight: 1, arbitrary: value.map((v): Line => ({ kind: 'other', text: `foo${v.replace(/:/g, '')}: ${v}` })) },
);
// A block is some lines and a blank line. An id needs a data line in its block: ids in data-less blocks are the one
// documented deviation (test/operators/parseSse.conformance.spec.ts).
const block = fc
  .array(fc.tuple(line, eol), { maxLength: 5 })
  .map((lines) => (lines.some(([l]) => l.kind === 'data') ? lines : lines.filter(([l]) => l.kind !== 'id')))
  .chain((lines) => eol.map((end) => lines.map(([l, e]) => l.text + e).join('') + end));
const stream = fc
  .tuple(
    fc.boolean(),
    fc.array(block, { maxLength: 6 }),
    fc.oneof(
      fc.constant(''),
      fc.tuple(line, fc.constantFrom('', '\n', '\r', '\r\n')).map(([l, e]) => l.text + e),
    ),
  )
  .map(([bom, blocks, tail]) => (bom ? '\ufeff' : '') + blocks.join('') + tail);

const cuts = (length: number) =>
  fc.array(fc.nat({ max: length }), { maxLength: 10 }).map((points) => [...new Set(points)].sort((a, b) => a - b));
function split<T extends string | Uint8Array>(whole: T, points: readonly number[]): T[] {
  const out: T[] = [];
  let from = 0;
  for (const p of points) {
    out.push(whole.slice(from, p) as T);
    from = p;
  }
  out.push(whole.slice(from) as T);
  return out;
}

describe('parseSse properties', () => {
  it('every split of the UTF-8 bytes gives the events of the WHATWG reference', async () => {
    await fc.assert(
      fc.asyncProperty(
        stream.chain((text) => {
          const bytes = new TextEncoder().encode(text);
          return fc.tuple(fc.constant(text), fc.constant(bytes), cuts(bytes.length));
        }),
        async ([text, bytes, points]) => {
          const expected = whatwgSse(text);
          expect(await run(split(bytes, points))).toEqual(expected);
          expect(await run(split(bytes, points), 'replace')).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('every split of the text (even inside a surrogate pair) gives the events of the WHATWG reference', async () => {
    await fc.assert(
      fc.asyncProperty(
        stream.chain((text) => fc.tuple(fc.constant(text), cuts(text.length))),
        async ([text, points]) => {
          expect(await run(split(text, points))).toEqual(whatwgSse(text));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a split right after every CR (between CR and LF) changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(stream, async (text) => {
        const points: number[] = [];
        for (let i = 0; i < text.length; i++) if (text[i] === '\r') points.push(i + 1);
        expect(await run(split(text, points))).toEqual(whatwgSse(text));
      }),
      { numRuns: 200 },
    );
  });

  it('byte-by-byte feeding gives the same events as one chunk', async () => {
    await fc.assert(
      fc.asyncProperty(stream, async (text) => {
        const bytes = new TextEncoder().encode(text);
        expect(await run(Array.from(bytes, (b) => Uint8Array.of(b)))).toEqual(await run([bytes]));
      }),
      { numRuns: 150 },
    );
  });
});

describe('parseSse properties with invalid UTF-8', () => {
  const bad = fc.constantFrom(
    [0xff],
    [0xc0, 0xaf],
    [0x80],
    [0xe4, 0x41],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0xf0, 0x9f, 0x98],
    [0xe4],
  );
  // Without id lines: a corrupted `data` line can leave an id alone in its block (the documented deviation).
  const idFree = stream.map((text) => text.replace(/(^\ufeff?|[\r\n])id/g, '$1xd'));
  const corrupted = fc
    .tuple(idFree, fc.array(fc.tuple(fc.nat(), bad), { minLength: 1, maxLength: 2 }))
    .map(([text, inserts]) => {
      const bytes = Array.from(new TextEncoder().encode(text));
      for (const [at, seq] of inserts) bytes.splice(at % (bytes.length + 1), 0, ...seq);
      return Uint8Array.from(bytes);
    });

  const outcome = (chunks: readonly Uint8Array[], invalidUtf8: 'error' | 'replace') => {
    const events: SseEvent[] = [];
    return new Promise<{ events: SseEvent[]; error?: string }>((resolve) =>
      from(chunks)
        .pipe(parseSse({ invalidUtf8 }))
        .subscribe({
          next: (e) => events.push(e),
          error: (e: { code: string }) => resolve({ events, error: e.code }),
          complete: () => resolve({ events }),
        }),
    );
  };

  /** The oracle for 'error': the events of the longest prefix that decodes without error, then the error. */
  const errorOracle = (bytes: Uint8Array) => {
    try {
      return { events: whatwgSse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)) };
    } catch {
      let k = bytes.length;
      const fits = (n: number): boolean => {
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, n), { stream: true });
          return true;
        } catch {
          return false;
        }
      };
      while (!fits(k)) k--;
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, k), { stream: true });
      return { events: whatwgSse(text), error: 'sse_invalid_utf8' };
    }
  };

  it("'error': the events before the first invalid byte, then sse_invalid_utf8, for every split", async () => {
    await fc.assert(
      fc.asyncProperty(
        corrupted.chain((bytes) => fc.tuple(fc.constant(bytes), cuts(bytes.length))),
        async ([bytes, points]) => {
          const expected = errorOracle(bytes);
          expect(await outcome(split(bytes, points), 'error')).toEqual(expected);
          expect(
            await outcome(
              Array.from(bytes, (b) => Uint8Array.of(b)),
              'error',
            ),
          ).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("'replace': U+FFFD as WHATWG decodes, for every split", async () => {
    await fc.assert(
      fc.asyncProperty(
        corrupted.chain((bytes) => fc.tuple(fc.constant(bytes), cuts(bytes.length))),
        async ([bytes, points]) => {
          const expected = { events: whatwgSse(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)) };
          expect(await outcome(split(bytes, points), 'replace')).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseSse properties: provider-shaped streams (the one-line data fast path)', () => {
  // Mostly `data: …` + blank line, as providers send, with the blocks that leave the fast path mixed in: several
  // lines, comments, `event`/`id`, `data:` without the space, CR or CRLF endings, a lone LF.
  const simple = value.map((v) => `data: ${v}\n\n`);
  const other = fc.oneof(
    value.map((v) => `: ${v}\n\n`),
    fc.tuple(value, value).map(([a, b]) => `data: ${a}\ndata: ${b}\n\n`),
    value.map((v) => `event: x\ndata: ${v}\n\n`),
    value.map((v) => `id: ${v.replace(/\0/g, '')}\ndata: ${v}\n\n`),
    value.map((v) => `data:${v}\n\n`),
    fc.tuple(value, fc.constantFrom('\r\r', '\r\n\r\n', '\n\r\n', '\r\n\n')).map(([v, end]) => `data: ${v}${end}`),
    fc.constant('\n'),
  );
  const providerStream = fc
    .tuple(
      fc.array(fc.oneof({ weight: 6, arbitrary: simple }, { weight: 1, arbitrary: other }), { maxLength: 12 }),
      fc.constantFrom('', 'data: tail', 'data: tail\n', 'da', 'data: x\r'),
    )
    .map(([blocks, tail]) => blocks.join('') + tail);
  // Small pieces too (one character, a lone CR), so pending data lines are carried over many texts.
  const pieces = (length: number) =>
    fc.array(fc.nat({ max: length }), { maxLength: 30 }).map((points) => [...new Set(points)].sort((a, b) => a - b));

  it('every split of the text gives the events of the WHATWG reference', async () => {
    await fc.assert(
      fc.asyncProperty(
        providerStream.chain((text) => fc.tuple(fc.constant(text), pieces(text.length))),
        async ([text, points]) => {
          expect(await run(split(text, points))).toEqual(whatwgSse(text));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('every split of the bytes gives the events of the WHATWG reference', async () => {
    await fc.assert(
      fc.asyncProperty(
        providerStream.chain((text) => {
          const bytes = new TextEncoder().encode(text);
          return fc.tuple(fc.constant(text), fc.constant(bytes), pieces(bytes.length));
        }),
        async ([text, bytes, points]) => {
          expect(await run(split(bytes, points))).toEqual(whatwgSse(text));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a text of single characters (each CR alone) gives the events of the WHATWG reference', async () => {
    await fc.assert(
      fc.asyncProperty(providerStream, async (text) => {
        expect(await run([...text])).toEqual(whatwgSse(text));
      }),
      { numRuns: 200 },
    );
  });
});
