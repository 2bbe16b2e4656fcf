/**
 * stringifyCompletionChunk (OPENAI_WIRE's encode, `POST /v1/chat/completions` with `"stream": true`): a text chunk by a
 * template, anything else by `JSON.stringify` — always `JSON.stringify`'s bytes. Proven on generated chunks, on
 * values just off the shape, and on every recorded stream of test/fixtures/streams through the composed operators
 * (`parseSse → decodeChunk → toOutputChunks → toChatCompletionChunks`) under random splits of its bytes.
 */
import fc from 'fast-check';
import { from, tap } from 'rxjs';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { toChatCompletionChunks } from '../../src/operators/toChatCompletionChunks';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import { OPENAI_WIRE } from '../../src/wire/OPENAI_WIRE';
import { stringifyCompletionChunk } from '../../src/wire/stringifyCompletionChunk';
import { expectJsonStringifyBytes } from '../helpers/expectJsonStringifyBytes';
import { networkCuts } from '../helpers/networkCuts';
import { FIXTURE_NAMES, readFixture } from '../helpers/readFixture';
import { providerStream, providerStreamBytes, providerTexts } from '../helpers/providerLiterals';


/**
 * The /v1 frames of `pieces` through the composed operators, each written as it is made (as the gateway writes it),
 * against JSON.stringify's (collected, then asserted: an assertion thrown inside the pipe would only end the stream).
 */
async function v1Frames(pieces: Uint8Array[]): Promise<void> {
  const differing: string[] = [];
  let frames = 0;
  await new Promise<void>((settled) => {
    from(pieces)
      .pipe(
        parseSse(),
        decodeChunk(),
        toOutputChunks(),
        toChatCompletionChunks({ model: 'm', id: 'chatcmpl-golden', created: 1, includeUsage: true }),
        tap((value) => {
          frames++;
          const frame = OPENAI_WIRE.encode(value);
          if (frame !== `data: ${JSON.stringify(value)}\n\n`) differing.push(frame);
        }),
      )
      .subscribe({ error: () => settled(), complete: () => settled() });
  });
  expect(differing).toEqual([]);
  expect(frames).toBeGreaterThan(1); // the stream was read through: its deltas and its finish
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null, head = { id: 'chatcmpl-1', created: 1, model: 'deepseek-chat' }) => ({
  id: head.id,
  object: 'chat.completion.chunk',
  created: head.created,
  model: head.model,
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const text = fc.string({ unit: 'binary' });
const delta = fc.record(
  { role: text, reasoning_content: text, content: text, refusal: text },
  { requiredKeys: [] },
);
const head = fc.record({ id: text, created: fc.integer({ min: -1e12, max: 1e12 }), model: text });

describe('stringifyCompletionChunk', () => {
  it("a text chunk: JSON.stringify's bytes (escapes, CJK, lone surrogates, U+2028), streams interleaved", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(delta, fc.option(text), fc.nat(), fc.boolean())), head, head, (values, a, b) => {
        for (const [fields, finish, index, second] of values) {
          const value = chunk(fields, finish, second ? b : a);
          value.choices[0]!.index = index;
          expect(stringifyCompletionChunk(value)).toBe(JSON.stringify(value));
        }
      }),
      { numRuns: 300 },
    );
    const odd = chunk({ role: 'assistant', content: 'a"\\\n\u2028\ud800 你好' }, null, { id: 'x"\u0000', created: -0, model: '\ud83d' });
    expect(stringifyCompletionChunk(odd)).toBe(JSON.stringify(odd));
  });

  it('writes a text chunk without JSON.stringify walking the chunk (the template is taken)', () => {
    const value = chunk({ content: 'Hi' });
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      expect(OPENAI_WIRE.encode(value)).toBe('data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"deepseek-chat","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n');
      expect(stringify.mock.calls.filter(([arg]) => arg === value)).toEqual([]);
    } finally {
      stringify.mockRestore();
    }
  });

  it("anything not exactly that shape is JSON.stringify's", () => {
    const inherited = Object.assign(Object.create({ choices: [] }) as object, { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' });
    const ownAndInherited = Object.assign(Object.create({ extra: 1 }) as object, chunk({ content: 'x' }));
    const inheritedDelta = chunk(Object.create({ content: 'x' }) as Record<string, unknown>);
    const arrayWithToJson = Object.assign([{ index: 0, delta: { content: 'x' }, finish_reason: null }], { toJSON: () => 'array' });
    const cases: unknown[] = [
      { ...chunk({ content: 'x' }), usage: null },
      { ...chunk({ content: 'x' }), choices: [] },
      { ...chunk({ content: 'x' }), choices: arrayWithToJson },
      { ...chunk({ content: 'x' }), choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }, { index: 1, delta: {}, finish_reason: null }] },
      { ...chunk({ content: 'x' }), choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null, logprobs: null }] },
      { ...chunk({ content: 'x' }), choices: [{ delta: { content: 'x' }, index: 0, finish_reason: null }] },
      { ...chunk({ content: 'x' }), choices: [{ index: 0.5, delta: { content: 'x' }, finish_reason: null }] },
      { ...chunk({ content: 'x' }), choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 3 }] },
      { ...chunk({ content: 'x' }), choices: [{ index: 0, delta: { content: 'x' }, finish_reason: undefined }] },
      { ...chunk({ content: 'x' }), choices: [undefined] },
      { ...chunk({ content: 'x' }), choices: 'x' },
      { ...chunk({ content: 'x' }), object: 'chat.completion' },
      { ...chunk({ content: 'x' }), created: 1.5 },
      { ...chunk({ content: 'x' }), created: Number.NaN },
      { ...chunk({ content: 'x' }), created: 2 ** 60 },
      { ...chunk({ content: 'x' }), id: 5 },
      { ...chunk({ content: 'x' }), model: null },
      Object.assign({ model: 'm' }, chunk({ content: 'x' })), // model first
      chunk({ content: 5 }),
      chunk({ content: null }),
      chunk({ content: undefined }),
      chunk({ content: 'x', tool_calls: [{ index: 0, id: 'call', type: 'function', function: { name: 'f', arguments: '{}' } }] }),
      chunk({ content: 'x', toJSON: () => 'delta' }),
      chunk({ toString: 'x' }),
      chunk({ __proto__: 'x' }),
      { ...chunk({ content: 'x' }), toJSON: () => 'chunk' },
      inherited,
      ownAndInherited,
      inheritedDelta,
    ];
    expectJsonStringifyBytes(stringifyCompletionChunk, cases);
  });

  it("an array or a boxed primitive where an object goes is JSON.stringify's (found in review)", () => {
    // for…in sees an array's named keys (and nothing of an empty one or of a boxed number): JSON.stringify writes an
    // array's elements and a boxed primitive's value, not the keys the template reads.
    const fields = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const choice = { index: 0, delta: { content: 'x' }, finish_reason: null };
    const cases: unknown[] = [
      chunk([] as unknown as Record<string, unknown>),
      chunk(Object.assign([], { content: 'x' }) as unknown as Record<string, unknown>),
      chunk(Object(1) as Record<string, unknown>), // a boxed number
      chunk(Object('') as Record<string, unknown>), // a boxed string
      chunk(Object(false) as Record<string, unknown>), // a boxed boolean
      { ...fields, choices: [Object.assign([], choice)] },
      Object.assign([], { ...fields, choices: [choice] }),
    ];
    for (const value of cases) expect(stringifyCompletionChunk(value)).toBe(JSON.stringify(value));
    // Anything (boxed values, null prototypes, sparse arrays…) in the place of the chunk, its choice or its delta.
    const anything = fc.anything({ withBoxedValues: true, withNullPrototype: true, withSparseArray: true, withObjectString: true, withMap: true, withSet: true, withDate: true });
    fc.assert(
      fc.property(anything, fc.constantFrom(0, 1, 2), (odd, where) => {
        const value: Record<string, unknown> = { ...fields, choices: [{ ...choice }] };
        const first = (value['choices'] as Array<Record<string, unknown>>)[0]!;
        if (where === 0) first['delta'] = odd;
        else if (where === 1) value['choices'] = [odd];
        const subject = where === 2 ? odd : value;
        expect(stringifyCompletionChunk(subject)).toBe(JSON.stringify(subject));
      }),
      { numRuns: 300 },
    );
  });

  it.each(FIXTURE_NAMES)('%s: the composed operators, split at random, give the frames of JSON.stringify', async (name) => {
    const bytes = new Uint8Array(readFixture(name));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: bytes.length }), { maxLength: 12 }), async (cuts) => {
        const at = [0, ...[...new Set(cuts)].sort((x, y) => x - y), bytes.length];
        const pieces = at.slice(1).map((end, i) => bytes.subarray(at[i], end));
        const chunks: unknown[] = [];
        await new Promise<void>((settled) => {
          from(pieces)
            .pipe(parseSse(), decodeChunk(), toOutputChunks(), toChatCompletionChunks({ model: 'm', id: 'chatcmpl-golden', created: 1, includeUsage: true }))
            .subscribe({ next: (value) => void chunks.push(value), error: () => settled(), complete: () => settled() }); // a failure fixture ends in its error
        });
        for (const value of chunks) expect(OPENAI_WIRE.encode(value)).toBe(`data: ${JSON.stringify(value)}\n\n`);
      }),
      { numRuns: 20 },
    );
  });

  it('provider literals escaped every way (\\/, \\u00e9, \\uD83D\\uDE00, uppercase hex, raw non-ASCII, control escapes), split at random: the frames of JSON.stringify', async () => {
    await fc.assert(
      fc.asyncProperty(
        providerTexts.chain((texts) => networkCuts(providerStreamBytes(providerStream(texts)))),
        async (pieces) => v1Frames(pieces),
      ),
      { numRuns: 150 },
    );
  });
});
