/**
 * Property tests: parseSse → decodeChunk gives the same chunks (or the same error) however the upstream bytes are
 * split, for the provider transcripts and for generated streams with CJK/emoji text and CR/LF/CRLF line ends.
 */
import fc from 'fast-check';
import { from, lastValueFrom, toArray } from 'rxjs';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { networkCuts } from '../helpers/networkCuts';
import { FIXTURE_NAMES, readFixture } from '../helpers/readFixture';

const outcome = (chunks: readonly Uint8Array[]) =>
  lastValueFrom(from(chunks).pipe(parseSse(), decodeChunk(), toArray())).then(
    (value) => ({ value }),
    (error: { name: string; code: string; message: string }) => ({
      error: { name: error.name, code: error.code, message: error.message },
    }),
  );


describe('decodeChunk properties', () => {
  it.each(FIXTURE_NAMES)('%s: every split of the bytes gives the same chunks or the same error', async (name) => {
    const bytes = new Uint8Array(readFixture(name));
    const whole = await outcome([bytes]);
    await fc.assert(
      fc.asyncProperty(networkCuts(bytes), async (pieces) => {
        expect(await outcome(pieces)).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });

  it('generated streams: every split gives back the chunks that were sent, Moonshot usage lifted', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '你', '好', '😀', '\n', '"', '\\', 'é'), maxLength: 8 });
    const usage = fc.record({ prompt_tokens: fc.nat(50), completion_tokens: fc.nat(50), total_tokens: fc.nat(100) });
    const chunkArb = fc.record(
      {
        id: fc.constant('c1'),
        choices: fc.array(
          fc.record(
            {
              index: fc.nat(1),
              delta: fc.record({ content: text }, { requiredKeys: [] }),
              finish_reason: fc.constantFrom(null, 'stop'),
              usage,
            },
            {
              requiredKeys: ['index'],
            },
          ),
          { maxLength: 2 },
        ),
        usage,
      },
      { requiredKeys: ['id', 'choices'] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunkArb, { maxLength: 5 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.boolean(),
        fc.nat(),
        async (chunks, eol, keepAlive, seed) => {
          const frames = chunks.map((c) => `data:${seed % 2 === 0 ? ' ' : ''}${JSON.stringify(c)}${eol}${eol}`);
          const sse =
            (keepAlive ? `: keep-alive${eol}${eol}` : '') +
            frames.join(keepAlive ? `: keep-alive${eol}${eol}` : '') +
            `data: [DONE]${eol}${eol}`;
          const bytes = new TextEncoder().encode(sse);
          const expected = chunks.map((c) => {
            const lifted = c.usage ?? c.choices.find((ch) => ch.usage !== undefined)?.usage;
            return lifted === undefined ? c : { ...c, usage: lifted };
          });
          const pieces = fc.sample(networkCuts(bytes), { numRuns: 1, seed })[0] ?? [bytes];
          expect(await outcome(pieces)).toEqual({ value: expected });
          expect(await outcome(Array.from(bytes, (b) => Uint8Array.of(b)))).toEqual({ value: expected });
        },
      ),
      { numRuns: 200 },
    );
  });
});
