/**
 * `readJsonChunks`, the serving core's one JSON body reader (node's `readJsonBody` and the web's `readRequestJson`
 * only remove their content codings): body-parser's rules on an async sequence of byte chunks, its refusals typed
 * as body-parser types them, and worded by `toRequestError` as the endpoints' 413, 415, 408 and 400. The bodies are
 * real web streams and zlib streams; the property: for any JSON object or array, however its UTF-8 bytes are split
 * (inside multi-byte characters too), the reader gives what `JSON.parse` gives, and the limit is exact.
 */
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { BodySource } from '../../src/source/createBodyReader';
import { readJsonChunks, type JsonBodySource } from '../../src/serve/readJsonChunks';
import { toRequestError } from '../../src/serve/toRequestError';

/** A real web stream of `chunks`; `cancelled()` tells whether the reader cancelled it. */
function streamOf(chunks: readonly Uint8Array[], { end = true, fail }: { end?: boolean; fail?: Error } = {}): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let wasCancelled = false;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk !== undefined) controller.enqueue(chunk);
      else if (fail !== undefined) controller.error(fail);
      else if (end) controller.close();
      else return new Promise<void>(() => undefined); // a body that stalls
      return undefined;
    },
    cancel: () => void (wasCancelled = true),
  });
  return { body, cancelled: () => wasCancelled };
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** `chunks` through a real `DecompressionStream` (the web's inflater). */
const decompressed = (chunks: readonly Uint8Array[], format: CompressionFormat): ReadableStream<Uint8Array> =>
  (streamOf(chunks).body as ReadableStream<Uint8Array<ArrayBuffer>>).pipeThrough(new DecompressionStream(format));

/** A request of `headers` whose `open` gives `body` for `identity` (or whatever `open` says). */
function source(headers: Record<string, string>, open: (coding: string) => BodySource | undefined): JsonBodySource & { opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    header: (name) => headers[name],
    open: (coding) => {
      opened.push(coding);
      return open(coding);
    },
  };
}

const read = (chunks: readonly Uint8Array[], headers: Record<string, string> = {}, limit: number | string = '1mb', timeoutMs = 0): Promise<unknown> =>
  readJsonChunks(
    source(headers, (coding) => (coding === 'identity' ? streamOf(chunks).body : undefined)),
    { limit, timeoutMs },
  );

/** The refusal's body-parser `type`, and the endpoint's code and message for it. */
async function refusal(reading: Promise<unknown>, limit: number | string = '1mb'): Promise<{ type: unknown; code: string | undefined; message: string | undefined }> {
  const error = await reading.then(
    (value) => {
      throw new Error(`read ${JSON.stringify(value)} instead of refusing`);
    },
    (failure: unknown) => failure,
  );
  const worded = toRequestError(error, limit);
  return { type: (error as { type?: unknown }).type, code: worded?.code, message: worded?.message };
}

describe('readJsonChunks: what it reads', () => {
  it.each<[string, readonly Uint8Array[], unknown]>([
    ['an empty body is {} (body-parser forgives it)', [], {}],
    ['an empty chunk is no text', [new Uint8Array(0)], {}],
    ['a byte order mark alone is an empty body', [utf8('\uFEFF')], {}],
    ['a byte order mark is dropped', [utf8('\uFEFF{"a":1}')], { a: 1 }],
    ['JSON whitespace around', [utf8(' \t\r\n{"a":[1,2]}\n ')], { a: [1, 2] }],
    ['an array', [utf8('[1,"two",null]')], [1, 'two', null]],
    ['a multi-byte character split between chunks', [utf8('{"a":"é你😀"}').subarray(0, 7), utf8('{"a":"é你😀"}').subarray(7)], { a: 'é你😀' }],
    ['one byte at a time', [...utf8('{"k":"€"}')].map((byte) => Uint8Array.of(byte)), { k: '€' }],
  ])('%s', async (_name, chunks, expected) => {
    await expect(read(chunks)).resolves.toEqual(expected);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json; charset="utf8"', 'application/json; charset='])('Content-Type %j is UTF-8', async (type) => {
    await expect(read([utf8('{"ok":true}')], { 'content-type': type })).resolves.toEqual({ ok: true });
  });

  it('the content coding handed to the transport is the header trimmed and in lower case, identity when absent or empty', async () => {
    for (const [header, coding] of [[undefined, 'identity'], ['', 'identity'], [' GZIP ', 'gzip'], ['br', 'br']] as const) {
      const request = source(header === undefined ? {} : { 'content-encoding': header }, () => streamOf([utf8('{}')]).body);
      await readJsonChunks(request, { limit: 100, timeoutMs: 0 });
      expect(request.opened).toEqual([coding]);
    }
  });

  it('reads a node Readable too (what node hands over: the stream piped from the request)', async () => {
    const request = source({}, () => Readable.from([Buffer.from('{"from":'), Buffer.from('"node"}')]));
    await expect(readJsonChunks(request, { limit: 100, timeoutMs: 0 })).resolves.toEqual({ from: 'node' });
  });
});

describe('readJsonChunks: what it refuses, and how the endpoint words it', () => {
  const NOT_JSON = { type: 'entity.parse.failed', code: 'invalid_request', message: 'the request body is not valid JSON' };
  it.each<[string, string | Uint8Array]>([
    ['a string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
    ['true', 'true'],
    ['whitespace only (body-parser: not JSON)', '  \n'],
    ['a truncated object', '{"a":'],
    ['an object with text after it', '{} x'],
    ['two byte order marks', '\uFEFF\uFEFF{}'],
    ['bytes that are not UTF-8', Uint8Array.of(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d)],
    ['a multi-byte character cut at the end', utf8('{"a":"é"}').subarray(0, 7)],
    ['a lone surrogate encoded (CESU-8)', Uint8Array.of(0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d)],
  ])('%s: 400 not valid JSON', async (_name, body) => {
    expect(await refusal(read([typeof body === 'string' ? utf8(body) : body]))).toEqual(NOT_JSON);
  });

  it.each(['latin1', 'utf-16', 'utf-16le', 'UTF-32', 'iso-8859-1'])('charset %s: 415, before the body is opened (RFC 8259 §8.1: UTF-8)', async (charset) => {
    const request = source({ 'content-type': `application/json; charset=${charset}` }, () => streamOf([utf8('{}')]).body);
    expect(await refusal(readJsonChunks(request, { limit: '1mb', timeoutMs: 0 }))).toEqual({
      type: 'charset.unsupported',
      code: 'unsupported_media_type',
      message: 'the request body must be UTF-8 JSON (Content-Type: application/json)',
    });
    expect(request.opened).toEqual([]);
  });

  it('a content coding the transport does not remove: 415', async () => {
    const request = source({ 'content-encoding': 'compress' }, () => undefined);
    expect(await refusal(readJsonChunks(request, { limit: '1mb', timeoutMs: 0 }))).toEqual({
      type: 'encoding.unsupported',
      code: 'unsupported_media_type',
      message: "the request's Content-Encoding is not supported: send gzip, deflate or br, or no Content-Encoding",
    });
  });

  it('a Content-Length over the limit: 413 naming the limit in bytes, before the body is opened', async () => {
    const request = source({ 'content-length': '2049' }, () => streamOf([utf8('{}')]).body);
    expect(await refusal(readJsonChunks(request, { limit: '2kb', timeoutMs: 0 }), '2kb')).toEqual({
      type: 'entity.too.large',
      code: 'payload_too_large',
      message: 'the request body is larger than the limit of 2048 bytes',
    });
    expect(request.opened).toEqual([]);
  });

  it('bytes over the limit without a Content-Length: 413 at the chunk that passes it, and the body is cancelled', async () => {
    const { body, cancelled } = streamOf([utf8('{"a":"'), utf8('x'.repeat(60)), utf8('"}')], { end: false });
    const reading = readJsonChunks(source({}, () => body), { limit: 64, timeoutMs: 0 });
    expect((await refusal(reading, 64)).type).toBe('entity.too.large');
    expect(cancelled()).toBe(true);
  });

  it('with the transport’s stop, the body is let go, not cancelled, and stop is told (node: its request carries the response)', async () => {
    const { body, cancelled } = streamOf([utf8('{"a":"'), utf8('x'.repeat(60))], { end: false });
    let stopped = 0;
    const request = { ...source({}, () => body), stop: () => void stopped++ };
    expect((await refusal(readJsonChunks(request, { limit: 64, timeoutMs: 0 }), 64)).type).toBe('entity.too.large');
    expect(stopped).toBe(1);
    expect(cancelled()).toBe(false);
    expect(body.locked).toBe(false); // free for the transport to finish as it sees fit
  });

  it('exactly the limit is read', async () => {
    const text = `{"a":"${'x'.repeat(56)}"}`;
    expect(utf8(text).byteLength).toBe(64);
    await expect(read([utf8(text)], {}, 64)).resolves.toEqual({ a: 'x'.repeat(56) });
  });

  it('a body not complete within timeoutMs: 408 naming the deadline, and the body is cancelled', async () => {
    const { body, cancelled } = streamOf([utf8('{"a":')], { end: false });
    const reading = readJsonChunks(source({}, () => body), { limit: '1mb', timeoutMs: 200 });
    expect(await refusal(reading)).toEqual({ type: 'request.timeout', code: 'request_timeout', message: 'the request body did not arrive within 200 ms' });
    expect(cancelled()).toBe(true);
  });

  it('a body that breaks off (the client gone): 400 could not be read', async () => {
    const gone = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    const reading = readJsonChunks(source({}, () => streamOf([utf8('{"a":')], { fail: gone }).body), { limit: '1mb', timeoutMs: 0 });
    expect(await refusal(reading)).toEqual({ type: 'request.aborted', code: 'invalid_request', message: 'the request body could not be read' });
  });

  const DOES_NOT_INFLATE = {
    type: 'encoding.failed',
    code: 'invalid_request',
    message: 'the request body does not decode as its Content-Encoding says: send gzip, deflate or br, or no Content-Encoding',
  };
  it('gzip that is not gzip (node:zlib): 400 does not decode', async () => {
    const request = source({ 'content-encoding': 'gzip' }, () => Readable.from([Buffer.from('{"a":1}')]).pipe(createGunzip()));
    expect(await refusal(readJsonChunks(request, { limit: '1mb', timeoutMs: 0 }))).toEqual(DOES_NOT_INFLATE);
  });

  it('a truncated gzip (DecompressionStream): 400 does not decode', async () => {
    const cut = gzipSync('{"a":1}').subarray(0, 12);
    const request = source({ 'content-encoding': 'gzip' }, () => decompressed([cut], 'gzip'));
    expect(await refusal(readJsonChunks(request, { limit: '1mb', timeoutMs: 0 }))).toEqual(DOES_NOT_INFLATE);
  });

  it('inflated bytes that are not UTF-8 are not JSON, not a bad encoding', async () => {
    const request = source({ 'content-encoding': 'gzip' }, () => decompressed([gzipSync(Uint8Array.of(0x5b, 0xff, 0x5d))], 'gzip'));
    expect(await refusal(readJsonChunks(request, { limit: '1mb', timeoutMs: 0 }))).toEqual(NOT_JSON);
  });

  it('the limit counts inflated bytes: a gzip bomb stops at the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x20)); // 16 MiB of spaces in ~16 KiB
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    const request = source({ 'content-encoding': 'gzip', 'content-length': String(bomb.byteLength) }, () => decompressed([bomb], 'gzip'));
    expect((await refusal(readJsonChunks(request, { limit: '100kb', timeoutMs: 0 }), '100kb')).message).toBe('the request body is larger than the limit of 102400 bytes');
  });
});

describe('readJsonChunks agrees with JSON.parse (property)', () => {
  const document = fc.oneof(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()), fc.array(fc.jsonValue()));
  /** The UTF-8 bytes of `text`, cut at `cuts` (any byte offsets: inside multi-byte characters too). */
  const split = (bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] => {
    const points = [...new Set(cuts.map((cut) => cut % (bytes.byteLength + 1)))].sort((a, b) => a - b);
    const chunks: Uint8Array[] = [];
    let start = 0;
    for (const point of [...points, bytes.byteLength]) {
      chunks.push(bytes.subarray(start, point));
      start = point;
    }
    return chunks;
  };

  it('any JSON object or array, indented or not, with or without a BOM, split anywhere: the value JSON.parse gives', async () => {
    await fc.assert(
      fc.asyncProperty(document, fc.constantFrom(undefined, 2, '\t'), fc.boolean(), fc.array(fc.nat(), { maxLength: 12 }), async (value, indent, bom, cuts) => {
        const text = JSON.stringify(value, null, indent);
        const bytes = utf8(`${bom ? '\uFEFF' : ''}${text}`);
        await expect(read(split(bytes, cuts), {}, bytes.byteLength)).resolves.toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('the limit is exact: one byte fewer is a 413', async () => {
    await fc.assert(
      fc.asyncProperty(document, fc.array(fc.nat(), { maxLength: 6 }), async (value, cuts) => {
        const bytes = utf8(JSON.stringify(value));
        expect((await refusal(read(split(bytes, cuts), {}, bytes.byteLength - 1))).type).toBe('entity.too.large');
      }),
      { numRuns: 100 },
    );
  });
});
