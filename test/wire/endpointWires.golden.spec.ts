/**
 * Golden tests of the three endpoint wires: each recorded provider stream (`test/fixtures/streams/<name>.sse`) goes
 * bytes → parseSse → decodeChunk → toOutput+JSON_WIRE / toOutputChunks+toNdjson / toOutputChunks+toSse, and the exact
 * text must equal `test/fixtures/golden/<name>.{json,ndjson,sse}`. `endpointWires.http.golden.spec.ts` holds the
 * HTTP endpoints to the same files.
 *
 * `.json` is the `/chat/json` body: the `LlmClientOutput`, or `{"error":{…}}` when the stream fails.
 * Regenerate with `UPDATE_GOLDEN=1 npx jest test/wire/endpointWires.golden`, then review every diff by eye.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Observable, lastValueFrom, map, toArray } from 'rxjs';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { encodeWire } from '../../src/wire/encodeWire';
import { JSON_WIRE } from '../../src/wire/JSON_WIRE';
import { toNdjson } from '../../src/wire/toNdjson';
import { toOutput } from '../../src/operators/toOutput';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import { toSse } from '../../src/wire/toSse';
import type { ChatCompletionChunk } from '../../src/core/schemas';
import { FIXTURE_NAMES, readFixture, type FixtureName } from '../helpers/readFixture';

const GOLDEN = join(__dirname, '..', 'fixtures', 'golden');
const update = process.env.UPDATE_GOLDEN === '1';

/** The fixture's bytes as a source, whole or cut into pieces of `size` bytes. */
const bytes = (name: FixtureName, size?: number): Observable<Uint8Array> =>
  new Observable((subscriber) => {
    const all = new Uint8Array(readFixture(name));
    const step = size ?? all.length;
    for (let at = 0; at < all.length && !subscriber.closed; at += step) subscriber.next(all.subarray(at, at + step));
    subscriber.complete();
  });

const chunks = (name: FixtureName, size?: number): Observable<ChatCompletionChunk> =>
  bytes(name, size).pipe(parseSse(), decodeChunk());

const join$ = (text: Observable<string>): Promise<string> =>
  lastValueFrom(
    text.pipe(
      toArray(),
      map((parts) => parts.join('')),
    ),
  );

const wires = async (name: FixtureName, size?: number): Promise<Record<'json' | 'ndjson' | 'sse', string>> => ({
  json: await lastValueFrom(chunks(name, size).pipe(toOutput(), encodeWire(JSON_WIRE))),
  ndjson: await join$(chunks(name, size).pipe(toOutputChunks(), toNdjson())),
  sse: await join$(chunks(name, size).pipe(toOutputChunks(), toSse())),
});

describe('endpoint wires (golden)', () => {
  it.each(FIXTURE_NAMES)('%s: the three wires are byte-exact', async (name) => {
    const actual = await wires(name);
    for (const ext of ['json', 'ndjson', 'sse'] as const) {
      const file = join(GOLDEN, `${name}.${ext}`);
      if (update) writeFileSync(file, actual[ext]);
      expect(existsSync(file)).toBe(true);
      expect(actual[ext]).toBe(readFileSync(file, 'utf8'));
    }
  });

  it.each(FIXTURE_NAMES)('%s: the wires do not depend on how the bytes are split', async (name) => {
    expect(await wires(name, 7)).toEqual(await wires(name));
  });

  it('/chat/stream and /chat/sse carry the same chunk sequence', async () => {
    for (const name of FIXTURE_NAMES) {
      const { ndjson, sse } = await wires(name);
      const fromNdjson = ndjson.split('\n').filter(Boolean);
      const fromSse = sse
        .split('\n\n')
        .filter((frame) => frame.startsWith('data: ') && frame !== 'data: [DONE]')
        .map((frame) => frame.slice('data: '.length));
      const chunkLines = fromNdjson.filter((line) => !line.startsWith('{"error"'));
      expect(fromSse.slice(0, chunkLines.length)).toEqual(chunkLines);
      expect(sse.endsWith('data: [DONE]\n\n')).toBe(true);
    }
  });
});
