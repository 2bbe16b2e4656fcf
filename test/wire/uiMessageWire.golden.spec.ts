/**
 * Golden tests of the AI SDK UI message stream wire (`POST /chat/ui`): each recorded provider stream
 * (`test/fixtures/streams/<name>.sse`) goes bytes → parseSse → decodeChunk → toOutputChunks → toUiMessageStream →
 * UI_MESSAGE_WIRE, and the exact text must equal `test/fixtures/golden/ui/<name>.sse`. Every part of every golden
 * stream is checked with the `ai` package's own `uiMessageChunkSchema` (through `parseJsonEventStream`, as
 * `DefaultChatTransport` reads it) and against `ai` 5.0.0's field set (older clients reject undeclared fields), and
 * `readUIMessageStream` must rebuild the same text, reasoning and tool calls as `toOutput` (`/chat/json`).
 *
 * Regenerate with `UPDATE_GOLDEN=1 npx jest test/wire/uiMessageWire.golden`, then review every diff by eye.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Observable, catchError, lastValueFrom, map, of, toArray } from 'rxjs';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { toOutput } from '../../src/operators/toOutput';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import { toUiMessageStream } from '../../src/operators/toUiMessageStream';
import { encodeWire } from '../../src/wire/encodeWire';
import { UI_MESSAGE_WIRE } from '../../src/wire/UI_MESSAGE_WIRE';
import type { ChatCompletionChunk, LlmClientOutput } from '../../src/core/schemas';
import { FIXTURE_NAMES, readFixture, type FixtureName } from '../helpers/readFixture';
import { rebuildUiMessage, validUiParts } from '../helpers/uiMessageParts';

const GOLDEN = join(__dirname, '..', 'fixtures', 'golden', 'ui');
const update = process.env.UPDATE_GOLDEN === '1';

/** The fields each part type has in `ai` 5.0.0's `uiMessageChunkSchema` (strict objects there: no other field passes). */
const FIELDS_5_0: Readonly<Record<string, readonly string[]>> = {
  start: ['messageId', 'messageMetadata'],
  'start-step': [],
  'text-start': ['id', 'providerMetadata'],
  'text-delta': ['id', 'delta', 'providerMetadata'],
  'text-end': ['id', 'providerMetadata'],
  'reasoning-start': ['id', 'providerMetadata'],
  'reasoning-delta': ['id', 'delta', 'providerMetadata'],
  'reasoning-end': ['id', 'providerMetadata'],
  'tool-input-start': ['toolCallId', 'toolName', 'providerExecuted', 'dynamic'],
  'tool-input-delta': ['toolCallId', 'inputTextDelta'],
  'tool-input-available': ['toolCallId', 'toolName', 'input', 'providerExecuted', 'providerMetadata', 'dynamic'],
  'finish-step': [],
  finish: ['messageMetadata'],
  error: ['errorText'],
};

/** The fixture's bytes as a source, whole or cut into pieces of `size` bytes. */
const bytes = (name: FixtureName, size?: number): Observable<Uint8Array> =>
  new Observable((subscriber) => {
    const all = new Uint8Array(readFixture(name));
    const step = size ?? all.length;
    for (let at = 0; at < all.length && !subscriber.closed; at += step) subscriber.next(all.subarray(at, at + step));
    subscriber.complete();
  });

const chunks = (name: FixtureName, size?: number): Observable<ChatCompletionChunk> => bytes(name, size).pipe(parseSse(), decodeChunk());

/** The wire's text, as the writer puts it on the wire after the commit. */
const wire = (name: FixtureName, size?: number): Promise<string> =>
  lastValueFrom(
    chunks(name, size).pipe(
      toOutputChunks(),
      toUiMessageStream({ messageId: 'msg_golden' }),
      encodeWire(UI_MESSAGE_WIRE),
      toArray(),
      map((parts) => parts.join('')),
    ),
  );


describe('UI message stream wire (golden)', () => {
  it.each(FIXTURE_NAMES)('%s: the stream is byte-exact', async (name) => {
    const actual = await wire(name);
    const file = join(GOLDEN, `${name}.sse`);
    if (update) {
      mkdirSync(GOLDEN, { recursive: true });
      writeFileSync(file, actual);
    }
    expect(existsSync(file)).toBe(true);
    expect(actual).toBe(readFileSync(file, 'utf8'));
  });

  it.each(FIXTURE_NAMES)('%s: the stream does not depend on how the bytes are split', async (name) => {
    expect(await wire(name, 7)).toEqual(await wire(name));
  });

  it.each(FIXTURE_NAMES)("%s: every part passes ai's uiMessageChunkSchema and has only ai 5.0.0's fields", async (name) => {
    const sse = readFileSync(join(GOLDEN, `${name}.sse`), 'utf8');
    const parts = await validUiParts(sse);
    expect(parts.length).toBeGreaterThan(0);
    for (const part of parts) {
      const allowed = FIELDS_5_0[part.type];
      expect([part.type, allowed !== undefined]).toEqual([part.type, true]);
      expect(Object.keys(part).filter((key) => key !== 'type' && !allowed!.includes(key))).toEqual([]);
    }
  });

  it.each(FIXTURE_NAMES)("%s: readUIMessageStream rebuilds /chat/json's text, reasoning and tool calls; a failed answer ends in an error part, never a finish", async (name) => {
    const sse = readFileSync(join(GOLDEN, `${name}.sse`), 'utf8');
    const parts = await validUiParts(sse);
    const json = await lastValueFrom(
      chunks(name).pipe(
        toOutput(),
        catchError(() => of(undefined)),
      ),
    );
    const { message, error } = await rebuildUiMessage(parts);
    const types = parts.map((part) => part.type);
    if (json === undefined) {
      expect([types.at(-1), types.includes('finish'), sse.endsWith('data: [DONE]\n\n'), error]).toEqual(['error', false, false, expect.anything()]);
      return;
    }
    expect([types.at(-1), types.filter((type) => type === 'error'), sse.endsWith('data: [DONE]\n\n'), error]).toEqual(['finish', [], true, undefined]);
    const expected = json as LlmClientOutput;
    const text = (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    const reasoning = (message?.parts ?? []).flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
    const calls = (message?.parts ?? []).flatMap((part) =>
      part.type.startsWith('tool-') ? [{ id: (part as { toolCallId: string }).toolCallId, name: part.type.slice(5), input: (part as { input: unknown }).input, state: (part as { state: string }).state }] : [],
    );
    expect(message?.id).toBe('msg_golden');
    expect(text).toBe(expected.message.content + (expected.message.refusal ?? ''));
    expect(reasoning).toBe(expected.message.reasoning_content ?? '');
    expect(calls).toEqual(
      (expected.message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) as unknown, state: 'input-available' })),
    );
  });

  it('the golden streams hold every part type toUiMessageStream and the wire make; the header names the protocol', async () => {
    const seen = new Set<string>();
    for (const name of FIXTURE_NAMES) {
      for (const part of await validUiParts(readFileSync(join(GOLDEN, `${name}.sse`), 'utf8'))) seen.add(part.type);
    }
    expect([...seen].sort()).toEqual(Object.keys(FIELDS_5_0).sort());
    expect(UI_MESSAGE_WIRE.headers).toEqual(expect.objectContaining({ 'Content-Type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' }));
    expect(UI_MESSAGE_WIRE.heartbeat).toBe(': ping\n\n');
    expect(await validUiParts(`${UI_MESSAGE_WIRE.heartbeat!}data: {"type":"start"}\n\n`)).toEqual([{ type: 'start' }]);
  });
});
