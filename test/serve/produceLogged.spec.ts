/**
 * produceLogged and loggedFrame: a resumable answer's value is turned into JSON once — the logged text — and the
 * client's frame is made of that same text (`WireText`), with the bytes the wires wrote before: SSE's
 * `formatSseEvent` frame with its `id:`, NDJSON's line.
 */
import fc from 'fast-check';
import { Subscriber, of } from 'rxjs';
import { serverSentEvent } from '../../src/core/serverSentEvent';
import { createMemoryStreamLog } from '../../src/store/createMemoryStreamLog';
import { createStreamId } from '../../src/serve/createStreamId';
import { loggedFrame } from '../../src/serve/loggedFrame';
import { produceLogged } from '../../src/serve/produceLogged';
import { streamEventId } from '../../src/serve/streamEventId';
import { formatSseEvent } from '../../src/wire/formatSseEvent';
import { NDJSON_WIRE } from '../../src/wire/NDJSON_WIRE';
import { SSE_WIRE } from '../../src/wire/SSE_WIRE';
import { UI_MESSAGE_WIRE } from '../../src/wire/UI_MESSAGE_WIRE';
import { stringifyValue } from '../../src/wire/stringifyValue';
import { WireText } from '../../src/wire/WireText';

/** The frame as it was written before: the logged text as a ServerSentEvent's data, formatted by `formatSseEvent`. */
const formatted = (json: string, id: string, position: number, event?: string): string =>
  formatSseEvent(serverSentEvent({ event, id: streamEventId.of(id, position), data: json }));

describe('loggedFrame', () => {
  it("writes formatSseEvent's bytes for any logged JSON text, with or without event: restart", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.constantFrom(undefined, 'restart'), (value, position, event) => {
        const id = createStreamId();
        const json = JSON.stringify(value);
        const frame = loggedFrame(json, id, position, event);
        expect(frame).toBeInstanceOf(WireText);
        expect(SSE_WIRE.encode(frame)).toBe(formatted(json, id, position, event));
      }),
      { numRuns: 500 },
    );
  });

  it('frames a logged text with raw line breaks (not JSON.stringify text) as formatSseEvent does: one data line each', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '"', '\r', '\n', '\r\n', 'é', ' ') }), fc.nat(), (text, position) => {
        const id = createStreamId();
        expect(SSE_WIRE.encode(loggedFrame(text, id, position))).toBe(formatted(text, id, position));
      }),
    );
  });

  it("a live value's text (stringifyValue's, not scanned for line breaks) is framed as formatSseEvent frames it", () => {
    // Strings full of CR/LF in every place (content, keys, an event's data): JSON.stringify escapes them all.
    const text = fc.string({ unit: fc.constantFrom('a', '\r', '\n', '\r\n', '\u2028', '"', '\\', '你') });
    const chunk = fc.record({ message: fc.record({ role: fc.constant('assistant'), content: text }), done: fc.constant(false), index: fc.nat() });
    const value = fc.oneof(chunk, fc.jsonValue(), fc.dictionary(text, fc.oneof(text, fc.jsonValue())), fc.anything());
    fc.assert(
      fc.property(value, fc.nat(), fc.constantFrom(undefined, 'restart'), (data, position, event) => {
        const id = createStreamId();
        const json = stringifyValue(data) ?? 'null';
        expect(SSE_WIRE.encode(loggedFrame(json, id, position, event, true))).toBe(formatted(json, id, position, event));
      }),
      { numRuns: 500 },
    );
  });
});

describe('produceLogged', () => {
  /** The values with a toJSON that counts its calls (the chunks' JSON is what the walk costs). */
  const counted = (count: { calls: number }) =>
    [0, 1, 2].map((index) => ({
      message: { role: 'assistant', content: `token ${index} 你好 "q"\n` },
      done: false,
      index,
      toJSON() {
        count.calls++;
        return { message: this.message, done: this.done, index: this.index };
      },
    }));

  const produce = async (sse: boolean, values: readonly unknown[]) => {
    const log = createMemoryStreamLog();
    const id = createStreamId();
    const producer = await log.open(id, { ownerKeyHash: '', wire: sse ? 'sse' : 'ndjson' });
    const frames: unknown[] = [];
    const client = new Subscriber<unknown>({ next: (frame) => void frames.push(frame), error: () => undefined, complete: () => undefined });
    produceLogged(producer, of(...values), client, { as: sse ? 'frame' : 'line', secrets: [] });
    await log.close();
    return { id, frames };
  };

  it('stringifies each value once on SSE: the client gets the logged text in its frame, as the writer writes it', async () => {
    const count = { calls: 0 };
    const values = counted(count);
    const { id, frames } = await produce(true, values);
    const written = frames.map((frame) => SSE_WIRE.encode(frame));
    expect(count.calls).toBe(3); // the log's JSON; writing the frames made of it stringifies nothing again
    expect(frames.every((frame) => frame instanceof WireText)).toBe(true); // not a ServerSentEvent checked and split again
    expect(written).toEqual(values.map((value, position) => formatted(stringifyValue({ ...value, toJSON: undefined })!, id, position)));
  });

  it('stringifies each value once on NDJSON: the line is the logged text, the bytes NDJSON_WIRE writes for the value', async () => {
    const count = { calls: 0 };
    const values = counted(count);
    const { frames } = await produce(false, values);
    const lines = frames.map((frame) => NDJSON_WIRE.encode(frame));
    expect(count.calls).toBe(3); // before: the writer stringified each value a second time
    expect(lines).toEqual(values.map((value) => NDJSON_WIRE.encode({ ...value, toJSON: undefined })));
  });

  it("hands the values themselves to any other wire (the UI message stream's), and logs their JSON", async () => {
    const log = createMemoryStreamLog();
    const id = createStreamId();
    const producer = await log.open(id, { ownerKeyHash: '', wire: 'ui' });
    const parts = [{ type: 'start' }, { type: 'text-delta', id: 'text-1', delta: 'Hi' }];
    const frames: unknown[] = [];
    const client = new Subscriber<unknown>({ next: (frame) => void frames.push(frame), error: () => undefined, complete: () => undefined });
    produceLogged(producer, of(...parts), client, { as: 'value', secrets: [] });
    expect(frames).toEqual(parts);
    expect(frames.map((part) => UI_MESSAGE_WIRE.encode(part))).toEqual(parts.map((part) => `data: ${JSON.stringify(part)}\n\n`));
    await log.close();
  });

  it('hands a value without a JSON form to the NDJSON writer as it is, which refuses it as before', async () => {
    const { frames } = await produce(false, [undefined]);
    expect(frames).toEqual([undefined]);
    expect(() => NDJSON_WIRE.encode(frames[0])).toThrow('An NDJSON line needs a JSON value');
  });
});
