/**
 * Golden tests of Anthropic's wires (`POST /v1/messages`): each recorded provider stream
 * (`test/fixtures/streams/<name>.sse`) goes bytes → parseSse → decodeChunk → toOutputChunks → toAnthropicEvents →
 * ANTHROPIC_WIRE (`"stream": true`) and → toOutput → toAnthropicMessage → ANTHROPIC_JSON_WIRE (the `message`, or
 * Anthropic's error body when the stream fails), and the exact text must equal
 * `test/fixtures/golden/anthropic/<name>.{sse,json}`. Together they hold every event type, the heartbeat's (`ping`)
 * in `heartbeat.sse`.
 *
 * Regenerate with `UPDATE_GOLDEN=1 npx jest test/wire/anthropicWire.golden`, then review every diff by eye.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Observable, catchError, lastValueFrom, map, of, toArray } from 'rxjs';
import { toErrorResponse } from '../../src/core/toErrorResponse';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { toAnthropicEvents } from '../../src/operators/toAnthropicEvents';
import { toAnthropicMessage } from '../../src/operators/toAnthropicMessage';
import { toOutput } from '../../src/operators/toOutput';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import { ANTHROPIC_JSON_WIRE } from '../../src/wire/ANTHROPIC_JSON_WIRE';
import { ANTHROPIC_WIRE } from '../../src/wire/ANTHROPIC_WIRE';
import { encodeWire } from '../../src/wire/encodeWire';
import type { ChatCompletionChunk } from '../../src/core/schemas';
import { FIXTURE_NAMES, readFixture, type FixtureName } from '../helpers/readFixture';

const GOLDEN = join(__dirname, '..', 'fixtures', 'golden', 'anthropic');
const update = process.env.UPDATE_GOLDEN === '1';
const MODEL = 'claude-sonnet-5';

/** The fixture's bytes as a source, whole or cut into pieces of `size` bytes. */
const bytes = (name: FixtureName, size?: number): Observable<Uint8Array> =>
  new Observable((subscriber) => {
    const all = new Uint8Array(readFixture(name));
    const step = size ?? all.length;
    for (let at = 0; at < all.length && !subscriber.closed; at += step) subscriber.next(all.subarray(at, at + step));
    subscriber.complete();
  });

const chunks = (name: FixtureName, size?: number): Observable<ChatCompletionChunk> => bytes(name, size).pipe(parseSse(), decodeChunk());

/** Both wires' text, as the writer puts them on the wire after the commit (the non-streaming one: the value or its error body). */
const wires = async (name: FixtureName, size?: number): Promise<Record<'sse' | 'json', string>> => ({
  sse: await lastValueFrom(
    chunks(name, size).pipe(
      toOutputChunks(),
      toAnthropicEvents({ model: MODEL, id: 'msg_golden' }),
      encodeWire(ANTHROPIC_WIRE),
      toArray(),
      map((parts) => parts.join('')),
    ),
  ),
  json: await lastValueFrom(
    chunks(name, size).pipe(
      toOutput(),
      toAnthropicMessage({ model: MODEL }),
      map((message) => ANTHROPIC_JSON_WIRE.encode(message)),
      catchError((error: unknown) => of(ANTHROPIC_JSON_WIRE.encodeError(toErrorResponse(error).body))),
    ),
  ),
});

/** The event types (and delta types) of an SSE text. */
const typesOf = (sse: string): string[] =>
  [...sse.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].flatMap(([, event, data]) => {
    const delta = (JSON.parse(data!) as { delta?: { type?: string } }).delta?.type;
    return delta === undefined ? [event!] : [event!, delta];
  });

describe('Anthropic wires (golden)', () => {
  it.each(FIXTURE_NAMES)('%s: the stream and the message are byte-exact', async (name) => {
    const actual = await wires(name);
    for (const ext of ['sse', 'json'] as const) {
      const file = join(GOLDEN, `${name}.${ext}`);
      if (update) writeFileSync(file, actual[ext]);
      expect(existsSync(file)).toBe(true);
      expect(actual[ext]).toBe(readFileSync(file, 'utf8'));
    }
  });

  it.each(FIXTURE_NAMES)('%s: the wires do not depend on how the bytes are split', async (name) => {
    expect(await wires(name, 7)).toEqual(await wires(name));
  });

  it('the golden streams hold every event and delta type; a stream ends with message_stop or with an error, never both', async () => {
    const heartbeat = join(GOLDEN, 'heartbeat.sse');
    if (update) writeFileSync(heartbeat, ANTHROPIC_WIRE.heartbeat!);
    expect(ANTHROPIC_WIRE.heartbeat).toBe(readFileSync(heartbeat, 'utf8'));
    const seen = new Set(typesOf(ANTHROPIC_WIRE.heartbeat!));
    for (const name of FIXTURE_NAMES) {
      const sse = readFileSync(join(GOLDEN, `${name}.sse`), 'utf8');
      for (const type of typesOf(sse)) seen.add(type);
      const ending = sse.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n') ? 'stop' : /event: error\ndata: [^\n]+\n\n$/.test(sse) ? 'error' : 'neither';
      expect([name, ending, sse.includes('message_stop') && sse.includes('event: error')]).toEqual([name, expect.stringMatching(/^(stop|error)$/), false]);
    }
    expect([...seen].sort()).toEqual(
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'text_delta',
        'thinking_delta',
        'input_json_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
        'ping',
        'error',
      ].sort(),
    );
  });
});
