import fc from 'fast-check';
import { from, tap } from 'rxjs';
import type { LlmClientOutputChunk } from '../../src/core/schemas/contract';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { toOutputChunks } from '../../src/operators/toOutputChunks';
import { SSE_WIRE } from '../../src/wire/SSE_WIRE';
import { stringifyValue } from '../../src/wire/stringifyValue';
import { providerStream, providerStreamBytes, providerTexts } from '../helpers/providerLiterals';
import { expectJsonStringifyBytes } from '../helpers/expectJsonStringifyBytes';
import { networkCuts } from '../helpers/networkCuts';
import { FIXTURE_NAMES, readFixture } from '../helpers/readFixture';


/**
 * The /chat/sse values of `pieces` through the composed operators, each stringified as it is made (as the gateway
 * logs and writes it), against JSON.stringify's text and SSE_WIRE's frame of it (collected, then asserted: an
 * assertion thrown inside the pipe would only end the stream). A failure fixture ends in its error.
 */
async function sseValues(pieces: Uint8Array[]): Promise<void> {
  const differing: string[] = [];
  await new Promise<void>((settled) => {
    from(pieces)
      .pipe(
        parseSse(),
        decodeChunk(),
        toOutputChunks(),
        tap((value: LlmClientOutputChunk) => {
          const json = stringifyValue(value);
          if (json !== JSON.stringify(value)) differing.push(`text ${json}`);
          if (SSE_WIRE.encode(value) !== `data: ${JSON.stringify(value)}\n\n`) differing.push(`frame ${json}`);
        }),
      )
      .subscribe({ error: () => settled(), complete: () => settled() });
  });
  expect(differing).toEqual([]);
}

const textChunk = (content: string, index: number) => ({ message: { role: 'assistant', content }, done: false, index });

describe('stringifyValue', () => {
  it('a streamed text chunk: the template, byte-identical to JSON.stringify (escapes, CJK, lone surrogates, U+2028)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(), (content, index) => {
        const value = textChunk(content, index);
        expect(stringifyValue(value)).toBe(JSON.stringify(value));
      }),
    );
    expect(stringifyValue(textChunk('a"\\\n\u2028\ud800', 7))).toBe(JSON.stringify(textChunk('a"\\\n\u2028\ud800', 7)));
  });

  it('anything not exactly that shape is JSON.stringify\'s', () => {
    const cases: unknown[] = [
      { message: { role: 'assistant', content: 'x' }, done: false, index: 1, extra: 1 },
      { message: { role: 'assistant', content: 'x', refusal: 'no' }, done: false, index: 1 },
      { done: false, message: { role: 'assistant', content: 'x' }, index: 1 },
      { message: { content: 'x', role: 'assistant' }, done: false, index: 1 },
      { message: { role: 'user', content: 'x' }, done: false, index: 1 },
      { message: { role: 'assistant', content: 5 }, done: false, index: 1 },
      { message: { role: 'assistant', content: 'x' }, done: true, index: 1 },
      { message: { role: 'assistant', content: 'x' }, done: false, index: 1.5 },
      { message: { role: 'assistant', content: 'x' }, done: false, index: NaN },
      { message: { role: 'assistant', content: 'x' }, done: false, index: -0 },
      { message: { role: 'assistant', content: 'x', toJSON: () => 'y' }, done: false, index: 1 },
      Object.assign(Object.create({ inherited: 1 }) as object, textChunk('x', 1)),
      Object.assign(Object.create({ toJSON: () => 'proto' }) as object, textChunk('x', 1)),
      // an inherited key where an own one is missing: for…in sees it, JSON.stringify does not
      Object.assign(Object.create({ index: 1 }) as object, { message: { role: 'assistant', content: 'x' }, done: false }),
      { message: Object.assign(Object.create({ content: 'x' }) as object, { role: 'assistant' }), done: false, index: 1 },
      // an array with the keys (for…in sees them; JSON.stringify writes the elements: none) — found in review
      Object.assign([], textChunk('x', 1)),
      { message: Object.assign([], { role: 'assistant', content: 'x' }), done: false, index: 1 },
    ];
    expectJsonStringifyBytes(stringifyValue, cases);
  });

  it.each(FIXTURE_NAMES)('%s: the composed operators, split at random, give JSON.stringify\'s text', async (name) => {
    const bytes = new Uint8Array(readFixture(name));
    await fc.assert(fc.asyncProperty(networkCuts(bytes), sseValues), { numRuns: 20 });
  });

  it('provider literals escaped every way (\\/, \\u00e9, \\uD83D\\uDE00, uppercase hex, raw non-ASCII, control escapes), split at random: JSON.stringify\'s text', async () => {
    await fc.assert(
      fc.asyncProperty(
        providerTexts.chain((texts) => networkCuts(providerStreamBytes(providerStream(texts)))),
        async (pieces) => sseValues(pieces),
      ),
      { numRuns: 150 },
    );
  });
});
