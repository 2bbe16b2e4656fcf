import fc from 'fast-check';
import { lastValueFrom, of, toArray } from 'rxjs';
import { matchesChunkShape } from '../../src/operators/matchesChunkShape';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { ChatCompletionChunk } from '../../src/core/schemas';

// Values near the chunk shape: every field is sometimes valid, null, omitted, or of a wrong type, so that both
// accepting and rejecting paths are exercised at every depth.
const wrong = fc.oneof(fc.boolean(), fc.constant({}), fc.constant([]), fc.constant('s'), fc.constant(1));
const opt = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: wrong },
  );
const str = opt(fc.string({ maxLength: 5 }));
const num = opt(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })));
const index = opt(
  fc.oneof(
    { weight: 5, arbitrary: fc.nat(5) },
    fc.integer({ min: -3, max: -1 }),
    fc.constant(0.5),
    fc.constant(2 ** 60),
  ),
);
const extra = fc.dictionary(fc.constantFrom('x', 'vendor', 'extra'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 1 });
const rec = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T) =>
  fc.tuple(fc.record(shape, { requiredKeys: [] }), extra).map(([a, b]) => ({ ...b, ...a }));
const usage = opt(
  rec({
    prompt_tokens: num,
    completion_tokens: num,
    total_tokens: num,
    prompt_tokens_details: opt(rec({ cached_tokens: num })),
    completion_tokens_details: opt(rec({ reasoning_tokens: num })),
    prompt_cache_hit_tokens: num,
    prompt_cache_miss_tokens: num,
    cached_tokens: num,
  }),
);
const toolCall = opt(rec({ index, id: str, type: str, function: opt(rec({ name: str, arguments: str })) }));
// Mistral's content parts: objects with a string `type` (sometimes wrong), or an array of something else.
const part = opt(rec({ type: str, text: str, thinking: fc.jsonValue({ maxDepth: 1 }) }));
const content = fc.oneof({ weight: 3, arbitrary: str }, { weight: 1, arbitrary: fc.array(part, { maxLength: 2 }) });
const delta = opt(
  rec({
    role: str,
    content,
    reasoning_content: str,
    reasoning: str,
    refusal: str,
    tool_calls: opt(fc.array(toolCall, { maxLength: 2 })),
  }),
);
const choice = opt(rec({ index, delta, finish_reason: str, logprobs: fc.jsonValue({ maxDepth: 1 }), usage }));
const chunk = opt(
  rec({
    id: str,
    object: str,
    created: num,
    model: str,
    system_fingerprint: str,
    choices: opt(fc.array(choice, { maxLength: 3 })),
    usage,
    x_groq: opt(rec({ id: str, usage })),
  }),
);

const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

/** Whether an own `__proto__` key stands anywhere in `value` (zod drops it at schema levels; the fast path declines). */
const hasProtoKey = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  (Object.prototype.hasOwnProperty.call(value, '__proto__') ||
    Object.values(value as Record<string, unknown>).some(hasProtoKey));

describe('matchesChunkShape', () => {
  it('agrees with the zod ChatCompletionChunk schema on accept/reject, and zod changes nothing it accepts', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: chunk }, { weight: 1, arbitrary: fc.jsonValue() }), (raw) => {
        const value = asJson(raw);
        const result = ChatCompletionChunk.safeParse(value);
        const matches = matchesChunkShape(value);
        // With a __proto__ key the fast path may decline what zod accepts (zod then drops the key): it must never
        // accept what zod rejects. Everywhere else the two agree exactly.
        if (hasProtoKey(value)) expect(!matches || result.success).toBe(true);
        else expect(matches).toBe(result.success);
        if (matches && result.success) {
          accepted++;
          const v = value as Record<string, unknown>;
          expect(result.data).toEqual(v.choices === undefined ? { ...v, choices: [] } : v);
        }
      }),
      { numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(50); // the generator reaches the accepting side too
  });

  it('leaves an own __proto__ key at any schema level to zod, which drops it', () => {
    for (const text of [
      '{"__proto__":false}',
      '{"__proto__":{"id":5}}',
      '{"choices":[{"__proto__":{"index":"bad"}}]}',
      '{"choices":[{"delta":{"\\u005f_proto__":{"content":"injected"}}}]}',
      '{"choices":[{"delta":{"tool_calls":[{"function":{"__proto__":{}}}]}}]}',
      '{"usage":{"prompt_tokens_details":{"__proto__":null}}}',
    ]) {
      const value = JSON.parse(text) as unknown;
      expect(matchesChunkShape(value)).toBe(false);
      const result = ChatCompletionChunk.safeParse(value);
      expect(result.success).toBe(true);
      expect(JSON.stringify(result.data)).not.toContain('__proto__');
    }
  });

  it('rejects non-finite numbers and unsafe integers as zod does', () => {
    for (const text of ['{"created":1e999}', '{"choices":[{"index":1e20}]}', '{"usage":{"total_tokens":-1e999}}']) {
      const value = JSON.parse(text) as unknown;
      expect(matchesChunkShape(value)).toBe(false);
      expect(ChatCompletionChunk.safeParse(value).success).toBe(false);
    }
  });

  it('decodeChunk accepts exactly what zod accepts, with the same value (plus the usage lift: x_groq, else a choice)', async () => {
    await fc.assert(
      fc.asyncProperty(chunk, async (raw) => {
        const value = asJson(raw);
        const data = JSON.stringify(value);
        const zod = ChatCompletionChunk.safeParse(value);
        const outcome = await lastValueFrom(of({ data }, { data: '[DONE]' }).pipe(decodeChunk(), toArray())).then(
          (chunks) => ({ ok: true as const, chunk: chunks[0] }),
          (error: unknown) => ({ ok: false as const, error }),
        );
        const isErrorPayload =
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          (value as { error?: unknown }).error != null;
        if (isErrorPayload) return;
        expect(outcome.ok).toBe(zod.success);
        if (outcome.ok && zod.success) {
          const expected = { ...zod.data };
          if (expected.usage == null) {
            const lifted = expected.x_groq?.usage ?? expected.choices.find((c) => c.usage != null)?.usage;
            if (lifted != null) expected.usage = lifted;
          }
          expect(outcome.chunk).toEqual(expected);
        } else if (!outcome.ok) {
          expect(outcome.error).toMatchObject({ code: 'schema_violation' });
        }
      }),
      { numRuns: 500 },
    );
  });
});
