/**
 * Fuzzing of the parsing pipeline with fast-check: random bytes and mutated real provider streams into
 * parseSse → decodeChunk → accumulateDeltas never throw anything but a chatflux error, never hang (a synchronous
 * source settles synchronously), and random SSE payloads round-trip through toSse → parseSse.
 *
 * Bounded runs here (FUZZ_RUNS, default 150 per property); `npm run fuzz` runs many more.
 */
import fc from 'fast-check';
import { from, toArray } from 'rxjs';
import { isChatfluxError, isStreamProtocolError, isUpstreamStreamError } from '../../src/core/errors';
import { accumulateDeltas } from '../../src/operators/accumulateDeltas';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { toSse } from '../../src/wire/toSse';
import { serverSentEvent } from '../../src/core/serverSentEvent';
import type { SseEvent } from '../../src/core/types';
import { FIXTURE_NAMES, readFixture } from '../helpers/readFixture';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 150);
jest.setTimeout(Math.max(30_000, RUNS * 100));

/** Cuts `bytes` at the given (sorted, deduplicated) offsets. */
const cut = (bytes: Uint8Array, offsets: number[]): Uint8Array[] => {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const point of [...points, bytes.length]) {
    parts.push(bytes.subarray(at, point));
    at = point;
  }
  return parts;
};

type Settled = { kind: 'complete'; values: number } | { kind: 'error'; error: unknown } | { kind: 'pending' };

/** Runs the pipeline over a synchronous source: it must settle before `subscribe` returns. */
function runPipeline(parts: Uint8Array[], maxEventSize = 4096): Settled {
  let settled: Settled = { kind: 'pending' };
  const subscription = from(parts)
    .pipe(parseSse({ maxEventSize }), decodeChunk(), accumulateDeltas(), toArray())
    .subscribe({
      next: (values) => (settled = { kind: 'complete', values: values.length }),
      error: (error: unknown) => (settled = { kind: 'error', error }),
    });
  subscription.unsubscribe();
  return settled;
}

const expectTypedOutcome = (settled: Settled): void => {
  expect(settled.kind).not.toBe('pending');
  if (settled.kind === 'error' && !isChatfluxError(settled.error)) throw settled.error; // shows the foreign error
};

/** A mutation of a byte string. */
const mutation = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 20 }),
  }),
  fc.record({
    op: fc.constant('insertText' as const),
    at: fc.nat(),
    text: fc.constantFrom(
      '\n',
      '\r',
      '\r\n',
      '\n\n',
      'data: ',
      'data: [DONE]\n\n',
      ': keep-alive\n\n',
      'event: error\n',
      '{',
      '}',
      '"',
      '\\u',
      '\u00ff',
      '\ufeff',
      '\xc3',
    ),
  }),
  fc.record({ op: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

const mutate = (input: Uint8Array, mutations: Mutation[]): Uint8Array => {
  let bytes = Buffer.from(input);
  for (const m of mutations) {
    const at = m.at % (bytes.length + 1);
    if (m.op === 'flip' && at < bytes.length) bytes[at] = m.byte;
    else if (m.op === 'delete') bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + m.length)]);
    else if (m.op === 'insert')
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(m.bytes), bytes.subarray(at)]);
    else if (m.op === 'insertText')
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(m.text, 'utf8'), bytes.subarray(at)]);
    else if (m.op === 'duplicate') bytes = Buffer.concat([bytes.subarray(0, at + m.length), bytes.subarray(at)]);
    else if (m.op === 'truncate') bytes = bytes.subarray(0, at);
  }
  return bytes;
};

describe('fuzz: parseSse → decodeChunk → accumulateDeltas', () => {
  it('random bytes, split anywhere: completes or fails with a chatflux error, synchronously', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.array(fc.nat(), { maxLength: 12 }), (bytes, offsets) => {
        expectTypedOutcome(runPipeline(cut(bytes, offsets)));
      }),
      { numRuns: RUNS },
    );
  });

  it('random SSE-looking text (field names, JSON fragments, line ends): the same', () => {
    const token = fc.constantFrom(
      'data:',
      'data: ',
      'event: ',
      'id: ',
      'retry: 10',
      ': c',
      '\n',
      '\r',
      '\r\n',
      '{',
      '}',
      '[',
      ']',
      '"',
      ',',
      ':',
      '"choices"',
      '"delta"',
      '"content"',
      '"tool_calls"',
      '"index"',
      '0',
      'null',
      '[DONE]',
      '"error"',
      'x',
      '你好',
      '\u0000',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 300 }), fc.array(fc.nat(), { maxLength: 12 }), (tokens, offsets) => {
        expectTypedOutcome(runPipeline(cut(Buffer.from(tokens.join(''), 'utf8'), offsets)));
      }),
      { numRuns: RUNS },
    );
  });

  it.each(FIXTURE_NAMES.map((name) => [name]))(
    'mutated %s: completes or fails with a chatflux error, synchronously',
    (name) => {
      const original = readFixture(name);
      fc.assert(
        fc.property(
          fc.array(mutation, { minLength: 1, maxLength: 6 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          (mutations, offsets) => {
            expectTypedOutcome(runPipeline(cut(mutate(original, mutations), offsets)));
          },
        ),
        { numRuns: Math.max(20, Math.round(RUNS / 4)) },
      );
    },
  );
});

/**
 * With a limit of 32 the inputs above (up to ~3 KB) cross it all the time, in every state of the parser: inside a
 * field, a comment, a line ending in CR, a multi-byte character. Only the stream's own typed errors may come out.
 */
describe('fuzz: the same pipeline with a small event-size limit (maxEventSize 32)', () => {
  const SMALL = 32;
  const codes: string[] = [];
  const expectStreamError = (settled: Settled): void => {
    expect(settled.kind).not.toBe('pending');
    if (settled.kind !== 'error') return;
    const { error } = settled;
    if (!isStreamProtocolError(error) && !isUpstreamStreamError(error)) throw error; // shows the foreign error
    codes.push(error.code);
    expect([
      'sse_event_too_large',
      'sse_invalid_utf8',
      'malformed_json',
      'schema_violation',
      'stream_incomplete',
      'upstream_error',
    ]).toContain(error.code);
  };
  const lineEnd = fc.constantFrom('\n', '\r', '\r\n', '\n\n', '\r\r');
  const field = fc.constantFrom('data:', 'data: ', ': keep-alive', 'event: error', 'id: 1', 'retry: 5', 'x');
  const value = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.constantFrom('{"choices":[]}', '{"error":{}}', '[DONE]', '你好🌏'.repeat(8), 'x'.repeat(31), 'x'.repeat(33)),
  );
  const line = fc.tuple(field, value, lineEnd).map(([f, v, end]) => `${f}${v}${end}`);

  it('random bytes, split anywhere', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.array(fc.nat(), { maxLength: 12 }), (bytes, offsets) => {
        expectStreamError(runPipeline(cut(bytes, offsets), SMALL));
      }),
      { numRuns: RUNS },
    );
  });

  it('SSE lines around the limit (CR, CRLF, LF ends; comments; multi-byte text), split anywhere', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), (lines, offsets) => {
        expectStreamError(runPipeline(cut(Buffer.from(lines.join(''), 'utf8'), offsets), SMALL));
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it.each(FIXTURE_NAMES.map((name) => [name]))('mutated %s', (name) => {
    const original = readFixture(name);
    fc.assert(
      fc.property(fc.array(mutation, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (mutations, offsets) => {
        expectStreamError(runPipeline(cut(mutate(original, mutations), offsets), SMALL));
      }),
      { numRuns: Math.max(20, Math.round(RUNS / 4)) },
    );
  });

  it('reached the limit (the runs above test the size rule, not only the healthy path)', () => {
    expect(codes).toContain('sse_event_too_large');
  });
});

describe('fuzz: toSse → parseSse round trip', () => {
  const noBreak = fc.string({ maxLength: 30 }).filter((s) => !/[\r\n\0]/.test(s));

  it('JSON values come back as the same `data`, then [DONE], however the text is split', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (values, offsets) => {
          let text = '';
          from(values)
            .pipe(toSse())
            .subscribe((frame) => (text += frame));
          const events = parseAll(cut(Buffer.from(text, 'utf8'), offsets));
          expect(events).toEqual([...values.map((value) => ({ data: JSON.stringify(value) })), { data: '[DONE]' }]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('serverSentEvent frames (text data with any line ends, event, id) come back as sent', () => {
    const frame = fc.record(
      { data: fc.string({ maxLength: 60 }).filter((s) => !s.includes('\0')), event: noBreak, id: noBreak },
      { requiredKeys: ['data'] },
    );
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 10 }), fc.array(fc.nat(), { maxLength: 12 }), (frames, offsets) => {
        let text = '';
        from(frames.map((f) => serverSentEvent(f)))
          .pipe(toSse())
          .subscribe((part) => (text += part));
        let lastId: string | undefined;
        const expected: SseEvent[] = frames.map((f) => {
          if (f.id !== undefined) lastId = f.id === '' ? undefined : f.id;
          const event: SseEvent = { data: f.data.replace(/\r\n|\r/g, '\n') };
          if (f.event !== undefined && f.event !== '') event.event = f.event;
          if (lastId !== undefined) event.id = lastId;
          return event;
        });
        expected.push(lastId === undefined ? { data: '[DONE]' } : { data: '[DONE]', id: lastId });
        expect(parseAll(cut(Buffer.from(text, 'utf8'), offsets))).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});

function parseAll(parts: Uint8Array[]): SseEvent[] {
  let events: SseEvent[] | undefined;
  from(parts)
    .pipe(parseSse(), toArray())
    .subscribe({
      next: (all) => (events = all),
      error: (error: unknown) => {
        throw error;
      },
    });
  expect(events).toBeDefined();
  return (events ?? []).map((e) => ({ ...e }));
}
