import fc from 'fast-check';
import { Observable, Subject, firstValueFrom, from, lastValueFrom, mergeMap, of, take, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { isConfigError, isStreamProtocolError, type StreamProtocolError } from '../../src/core/errors';
import { parseSse, type ParseSseConfig } from '../../src/operators/parseSse';
import type { SseEvent } from '../../src/core/types';
import { readFixture } from '../helpers/readFixture';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const parse = (chunks: readonly (string | Uint8Array)[], config?: ParseSseConfig): Promise<SseEvent[]> =>
  lastValueFrom(from(chunks).pipe(parseSse(config), toArray()));
const parseError = async (chunks: readonly (string | Uint8Array)[], config?: ParseSseConfig) => {
  const seen: SseEvent[] = [];
  const error = await new Promise<unknown>((resolve, reject) =>
    from(chunks)
      .pipe(parseSse(config))
      .subscribe({
        next: (e) => seen.push(e),
        error: resolve,
        complete: () => reject(new Error('completed without error')),
      }),
  );
  return { seen, error: error as StreamProtocolError };
};

describe('parseSse', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('marbles', () => {
    it('emits an event when its blank line arrives, and completes with the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a-b-c-|', { a: 'data: 1\n', b: '\ndata: 2\r', c: '\r' });
        expectObservable(source.pipe(parseSse())).toBe('---x-y-|', { x: { data: '1' }, y: { data: '2' } });
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });

    it('treats a CR and an LF in different chunks as one line end, dispatching as soon as the blank line is there', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a-b-c-d|', { a: 'data: x\r', b: '\n', c: '\r', d: '\ndata: y\n\n' });
        // a+b is one CRLF; c is the blank line (a lone CR so far); the LF of d completes c's CRLF, not another line.
        expectObservable(source.pipe(parseSse())).toBe('-----x-y|', { x: { data: 'x' }, y: { data: 'y' } });
      });
    });

    it('dispatches an event ended by CR CR at the end of a chunk at once, not with the next chunk', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a---|', { a: 'data: x\r\r' });
        expectObservable(source.pipe(parseSse())).toBe('-x---|', { x: { data: 'x' } });
      });
    });

    it('passes source errors through and unsubscribes', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a--#', { a: 'data: 1\n\n' }, new Error('boom'));
        expectObservable(source.pipe(parseSse())).toBe('-x--#', { x: { data: '1' } }, new Error('boom'));
        expectSubscriptions(source.subscriptions).toBe('^---!');
      });
    });

    it('ends with sse_event_too_large and unsubscribes from the source at that frame', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a-b-c-|', { a: 'data: 1\n\n', b: 'data: 0123456789', c: '\n\n' });
        const error = expect.objectContaining({ name: 'StreamProtocolError', code: 'sse_event_too_large' });
        expectObservable(source.pipe(parseSse({ maxEventSize: 10 }))).toBe('-x-#', { x: { data: '1' } }, error);
        expectSubscriptions(source.subscriptions).toBe('^--!');
      });
    });

    it('does not break unsubscription chains when the result is unsubscribed explicitly', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const source = hot('--a--b--c--|', { a: 'data: 1\n\n', b: 'data: 2\n\n', c: 'data: 3\n\n' });
        const result = source.pipe(
          mergeMap((x) => of(x)),
          parseSse(),
          mergeMap((x) => of(x)),
        );
        expectObservable(result, '^------!').toBe('--x--y--', { x: { data: '1' }, y: { data: '2' } });
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });
  });

  it('stops listening to a synchronous source when the result is unsubscribed (firehose + take)', () => {
    const sideEffects: number[] = [];
    const firehose = new Observable<string>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 100; i++) {
        sideEffects.push(i);
        subscriber.next(`data: ${i}\n\n`);
      }
      subscriber.complete();
    });
    const seen: SseEvent[] = [];
    firehose.pipe(parseSse(), take(3)).subscribe((e) => seen.push(e));
    expect(seen).toEqual([{ data: '0' }, { data: '1' }, { data: '2' }]);
    expect(sideEffects).toEqual([0, 1, 2]);
  });

  it('stops dispatching the rest of a chunk once the consumer has unsubscribed', async () => {
    const event = await firstValueFrom(from(['data: 1\n\ndata: 2\n\ndata: 3\n\n']).pipe(parseSse()));
    expect(event).toEqual({ data: '1' });
  });

  it('gives every subscription its own parser state', async () => {
    const source = from(['id: 7\n', 'data: a\n\n', 'data: b']);
    const op = source.pipe(parseSse());
    expect(await lastValueFrom(op.pipe(toArray()))).toEqual([{ data: 'a', id: '7' }]);
    expect(await lastValueFrom(op.pipe(toArray()))).toEqual([{ data: 'a', id: '7' }]);
  });

  describe('comments', () => {
    it('reports every comment to onComment without the colon and one leading space', async () => {
      const comments: string[] = [];
      const events = await parse([': keep-alive\n\n:no-space\n:  two\n', 'data: x\n\n'], {
        onComment: (c) => comments.push(c),
      });
      expect(comments).toEqual(['keep-alive', 'no-space', ' two']);
      expect(events).toEqual([{ data: 'x' }]);
    });

    it('reports comments in order with the events, as they arrive', () => {
      const log: string[] = [];
      const subject = new Subject<string>();
      subject
        .pipe(parseSse({ onComment: (c) => log.push(`comment ${c}`) }))
        .subscribe((e) => log.push(`event ${e.data}`));
      subject.next(': keep-alive\n\n');
      expect(log).toEqual(['comment keep-alive']);
      subject.next('data: a\n\n: keep-alive\n');
      expect(log).toEqual(['comment keep-alive', 'event a', 'comment keep-alive']);
      subject.complete();
    });

    it('an onComment that throws errors the stream', async () => {
      const { error } = await parseError([': x\n'], {
        onComment: () => {
          throw new Error('callback failed');
        },
      });
      expect(error).toEqual(new Error('callback failed'));
    });
  });

  describe('UTF-8', () => {
    it('joins a character split across byte chunks', async () => {
      const all = enc('data: 你好😀\n\n');
      const chunks = Array.from(all, (b) => Uint8Array.of(b));
      expect(await parse(chunks)).toEqual([{ data: '你好😀' }]);
    });

    it('strips a BOM split across byte chunks', async () => {
      expect(await parse([bytes(0xef), bytes(0xbb), bytes(0xbf, 0x64), enc('ata: x\n\n')])).toEqual([{ data: 'x' }]);
    });

    it('errors with sse_invalid_utf8 on an invalid byte by default', async () => {
      const { error } = await parseError([enc('data: a\n\n'), bytes(0x64, 0xff, 0x0a, 0x0a)]);
      expect(isStreamProtocolError(error)).toBe(true);
      expect(error.code).toBe('sse_invalid_utf8');
    });

    it('still emits the events before the invalid byte in the same chunk, as any split would', async () => {
      const { seen, error } = await parseError([
        Uint8Array.from([...enc('data: a\n\ndata: 你'), 0xe4, 0x41, ...enc('\n\n')]),
      ]);
      expect(seen).toEqual([{ data: 'a' }]);
      expect(error.code).toBe('sse_invalid_utf8');
    });

    it('errors with sse_invalid_utf8 when the input ends inside a character', async () => {
      const { seen, error } = await parseError([enc('data: a\n\n'), bytes(0xe4, 0xbd)]);
      expect(seen).toEqual([{ data: 'a' }]);
      expect(error.code).toBe('sse_invalid_utf8');
    });

    it('errors when a string chunk follows an unfinished character', async () => {
      const { error } = await parseError([bytes(0xe4), 'data: a\n\n']);
      expect(error.code).toBe('sse_invalid_utf8');
    });

    it("replaces invalid bytes with U+FFFD with invalidUtf8: 'replace'", async () => {
      expect(
        await parse([bytes(0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0xe4, 0xbd), enc('\n\n')], { invalidUtf8: 'replace' }),
      ).toEqual([{ data: '\ufffd\ufffd' }]);
    });

    it("replaces an unfinished character at the end with invalidUtf8: 'replace' (then discards the unterminated line)", async () => {
      expect(await parse([enc('data: a\n\ndata: '), bytes(0xe4)], { invalidUtf8: 'replace' })).toEqual([{ data: 'a' }]);
    });

    it('accepts strings and bytes in one stream', async () => {
      expect(await parse(['data: a', enc('\n\ndata: 你'), '\n\n'])).toEqual([{ data: 'a' }, { data: '你' }]);
    });
  });

  describe('maximum event size', () => {
    it('errors when one event buffered over chunks exceeds maxEventSize', async () => {
      const { seen, error } = await parseError(['data: ok\n\n', 'data: 12345\n', 'data: 67890\n', '\n'], {
        maxEventSize: 10,
      });
      expect(seen).toEqual([{ data: 'ok' }]);
      expect(error.code).toBe('sse_event_too_large');
    });

    it('errors when a line without an end grows past maxEventSize', async () => {
      const { error } = await parseError(['data: ', 'x'.repeat(8), 'y'.repeat(8)], { maxEventSize: 10 });
      expect(error.code).toBe('sse_event_too_large');
    });

    it('errors also when the oversize event arrives whole in one chunk', async () => {
      const { seen, error } = await parseError(['data: 1\n\ndata: 0123456789a\n\ndata: 2\n\n'], { maxEventSize: 10 });
      expect(seen).toEqual([{ data: '1' }]);
      expect(error.code).toBe('sse_event_too_large');
    });

    it('accepts an event of exactly maxEventSize', async () => {
      expect(await parse(['data: 0123456789\n\n'], { maxEventSize: 10 })).toEqual([{ data: '0123456789' }]);
    });

    it('counts the line being read, field name included, against the limit', async () => {
      expect(await parse(['data: 0123', '\n\n'], { maxEventSize: 10 })).toEqual([{ data: '0123' }]);
      const { error } = await parseError(['data: 0123', '4', '\n\n'], { maxEventSize: 10 });
      expect(error.code).toBe('sse_event_too_large');
    });

    it('gives the typed error, not the terminated parser’s, when the oversize line ends with CR', async () => {
      for (const chunks of [['data: ' + 'x'.repeat(20) + '\r', '\r'], ['xxxxxxxxxxxxdata:data:\r']]) {
        const { error } = await parseError(chunks, { maxEventSize: 10 });
        expect(error).toMatchObject({ name: 'StreamProtocolError', code: 'sse_event_too_large' });
      }
    });

    it('passes an event whose whole block fits, and fails one whose data exceeds the limit, however it is split', async () => {
      const max = 40;
      const block = 'data: ' + 'a'.repeat(12) + '\ndata: ' + 'b'.repeat(12) + '\n\n'; // 39 characters with its ends
      expect(block.length).toBeLessThanOrEqual(max);
      const over = 'data: ' + 'c'.repeat(max + 1) + '\n\n';
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(200), { maxLength: 6 }), async (cuts) => {
          const text = 'data: 1\n\n' + block + over + 'data: 2\n\n';
          const points = [...new Set(cuts.map((c) => c % text.length))].sort((a, b) => a - b);
          const chunks = [0, ...points].map((start, i) => text.slice(start, points[i] ?? text.length)).filter(Boolean);
          const { seen, error } = await parseError(chunks, { maxEventSize: max });
          expect(seen).toEqual([{ data: '1' }, { data: 'a'.repeat(12) + '\n' + 'b'.repeat(12) }]);
          expect(error.code).toBe('sse_event_too_large');
        }),
        { numRuns: 300 },
      );
    });

    it('charges an event of many lines for its lines too: short lines cannot hold memory far beyond the limit', async () => {
      // 1000 lines of `data: x`: 2000 characters of data (within 10 000), but 1000 joined lines (~64 bytes each).
      const chunks = Array.from({ length: 10 }, () => 'data: x\n'.repeat(100));
      const { seen, error } = await parseError(['data: ok\n\n', ...chunks, '\n'], { maxEventSize: 10_000 });
      expect(seen).toEqual([{ data: 'ok' }]);
      expect(error.code).toBe('sse_event_too_large');
      // Up to 64 lines an event is judged by its characters alone, as before; comments are not charged.
      const few = Array.from({ length: 64 }, () => 'data: x\n').join('') + ': c\n'.repeat(500);
      expect(await parse([few, '\n'], { maxEventSize: 10_000 })).toEqual([{ data: Array(64).fill('x').join('\n') }]);
    });

    it('under the default limit, endless `data: x` lines of one event fail within a bounded number of lines', () => {
      // Each chunk: 8192 lines (64 KiB). Under 16 MiB counted in characters alone this failed only after ~8.4 M lines
      // (~500 MB of heap); charged per line it fails after 16 MiB / 40 ≈ 420 000 lines.
      const chunk = 'data: x\n'.repeat(8192);
      let lines = 0;
      let failure: unknown;
      const source = new Subject<string>();
      source.pipe(parseSse()).subscribe({ error: (error: unknown) => (failure = error) });
      source.next('data: first\n');
      while (failure === undefined && lines < 1_000_000) {
        source.next(chunk);
        lines += 8192;
      }
      expect(failure).toMatchObject({ name: 'StreamProtocolError', code: 'sse_event_too_large' });
      expect(lines).toBeLessThan(450_000);
    });

    it('defaults to 16 MiB', async () => {
      const big = 'x'.repeat(16 * 1024 * 1024 - 'data: '.length);
      expect((await parse(['data: ', big, '\n\n']))[0]?.data.length).toBe(big.length);
      const { error } = await parseError(['data: ', big, 'x', '\n\n']);
      expect(error.code).toBe('sse_event_too_large');
    });
  });

  describe('config', () => {
    it.each([0, -1, 1.5, Number.NaN])('rejects maxEventSize %p with a ConfigError', (maxEventSize) => {
      expect(() => parseSse({ maxEventSize })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    });

    it('rejects an unknown invalidUtf8 policy and a non-function onComment', () => {
      const bad1 = (): unknown => parseSse({ invalidUtf8: 'ignore' as 'error' });
      const bad2 = (): unknown => parseSse({ onComment: 'x' as unknown as () => void });
      for (const call of [bad1, bad2]) {
        let caught: unknown;
        try {
          call();
        } catch (error) {
          caught = error;
        }
        expect(isConfigError(caught)).toBe(true);
      }
    });

    it('reads a 20 MB one-line event arriving in 1,280 pieces in linear time (a deadline far beyond linear)', async () => {
      // Quadratic reading (copying what came so far at every piece) moves ~13 GB here and misses the deadline by far;
      // linear reading takes well under a second.
      const piece = new TextEncoder().encode('x'.repeat(16 * 1024));
      const chunks = [new TextEncoder().encode('data: '), ...Array.from({ length: 1280 }, () => piece), '\n\n'];
      const started = performance.now();
      const [event] = await parse(chunks, { maxEventSize: 32 * 1024 * 1024 });
      expect(event?.data.length).toBe(1280 * 16 * 1024);
      // Synchronous parsing cannot be interrupted by jest's timeout: the deadline is asserted (linear: ~0.1 s).
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('accepts maxEventSize: Infinity (no limit)', async () => {
      expect(await parse(['data: ', 'x'.repeat(100), '\n\n'], { maxEventSize: Infinity })).toEqual([
        { data: 'x'.repeat(100) },
      ]);
    });
  });

  describe('provider transcripts', () => {
    it('parses a DeepSeek keep-alive queue: comments observable, events intact', async () => {
      const comments: string[] = [];
      const events = await parse([readFixture('deepseek-keepalive-queue')], { onComment: (c) => comments.push(c) });
      expect(comments.length).toBeGreaterThan(0);
      expect(new Set(comments)).toEqual(new Set(['keep-alive']));
      expect(events.at(-1)).toEqual({ data: '[DONE]' });
      for (const e of events.slice(0, -1)) expect(() => JSON.parse(e.data) as unknown).not.toThrow();
    });

    it('accepts data: without the space', async () => {
      expect(await parse(['data:{"a":1}\n\ndata:[DONE]\n\n'])).toEqual([{ data: '{"a":1}' }, { data: '[DONE]' }]);
    });

    it('ignores a bare non-SSE line (an HTML error page fragment) and reads on', async () => {
      expect(await parse(['<html>502 Bad Gateway</html>\n\ndata: x\n\n'])).toEqual([{ data: 'x' }]);
    });

    it('passes an event: error frame on with its type', async () => {
      expect(await parse(['event: error\ndata: {"error":{"message":"m"}}\n\n'])).toEqual([
        { event: 'error', data: '{"error":{"message":"m"}}' },
      ]);
    });
  });
});
