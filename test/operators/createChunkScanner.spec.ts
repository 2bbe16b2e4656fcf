/**
 * The chunk scanner (decodeChunk's fast path) against the plain path: whatever it returns is exactly what
 * `JSON.parse` gives (deep-equal, same key order, no object shared with an earlier result) for a chunk the schema
 * accepts; anything it does not recognise is `undefined`. Differential property tests over generated chunks of the
 * common shape and near it, and over mutated texts of them (fast-check, fixed seed), then decodeChunk's output with
 * the scanner against JSON.parse + the zod schema on the same events.
 */
import fc from 'fast-check';
import { from, lastValueFrom, toArray } from 'rxjs';
import { createChunkScanner } from '../../src/operators/createChunkScanner';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { matchesChunkShape } from '../../src/operators/matchesChunkShape';
import { ChatCompletionChunk } from '../../src/core/schemas';
import { redactSecrets } from '../../src/core/redactSecrets';
import type { SseEvent } from '../../src/core/types';
import { escapedText, escapeLiteral } from '../helpers/providerLiterals';

const HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767867407,"model":"kimi-k2","choices":';
const text = (content: string) =>
  `${HEAD}[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]}`;

/** The plain path's chunk: JSON.parse, then the schema (undefined when either refuses). */
function plain(data: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  return ChatCompletionChunk.safeParse(parsed).success ? parsed : undefined;
}

/** Checks one scanner result against the plain path; returns whether the scanner took the chunk. */
function agree(scanned: unknown, data: string, earlier: unknown[]): boolean {
  if (scanned === undefined) return false;
  const parsed = plain(data);
  expect(parsed).toBeDefined(); // the scanner never accepts what the plain path refuses
  expect(scanned).toStrictEqual(parsed);
  expect(JSON.stringify(scanned)).toBe(JSON.stringify(parsed)); // same key order, at every level
  expect(matchesChunkShape(scanned)).toBe(true);
  const chunk = scanned as { choices: Array<{ delta: object }> };
  for (const before of earlier as Array<typeof chunk>) {
    expect(chunk).not.toBe(before);
    expect(chunk.choices).not.toBe(before.choices);
    expect(chunk.choices[0]).not.toBe(before.choices[0]);
    expect(chunk.choices[0]!.delta).not.toBe(before.choices[0]!.delta);
  }
  return true;
}

// Strings with what JSON escapes (quotes, backslashes, control characters), CJK, emoji and lone surrogates.
const str = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    ' ',
    '你',
    '😀',
    '\ud800',
    '\n',
    '\t',
    '\r',
    '\b',
    '\f',
    '\u0001',
    '"',
    '\\',
    '/',
    'é',
    '\u2028',
  ),
  maxLength: 20,
});
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant(null));
const index = fc.oneof(
  { weight: 5, arbitrary: fc.nat(3) },
  fc.constant(1_000_000_000),
  fc.constant(-1),
  fc.constant(0.5),
);
const fragment = fc.record(
  {
    index,
    id: str,
    type: fc.constant('function'),
    function: fc.record({ name: str, arguments: str }, { requiredKeys: ['arguments'] }),
  },
  { requiredKeys: ['index', 'function'] },
);
const delta = fc.record(
  {
    role: nullable(fc.constantFrom('assistant', 'tool')),
    content: nullable(str),
    reasoning_content: nullable(str),
    reasoning: nullable(str),
    refusal: nullable(str),
    tool_calls: fc.array(fragment, { minLength: 1, maxLength: 2 }),
    x: fc.integer(),
  },
  { requiredKeys: [] },
);
const choice = fc.record(
  {
    index,
    delta,
    logprobs: fc.constant(null),
    finish_reason: nullable(fc.constantFrom('stop', 'tool_calls')),
    usage: fc.constant({ prompt_tokens: 1 }),
  },
  { requiredKeys: ['index', 'delta'] },
);
const head = fc.record(
  {
    id: fc.constantFrom('chatcmpl-1', 'chatcmpl-2', 'sk-1234567890abcdef'),
    object: fc.constant('chat.completion.chunk'),
    created: fc.constantFrom(1767867407, 0),
    model: fc.constantFrom('kimi-k2', 'deepseek-chat'),
    system_fingerprint: fc.constant('fp_1'),
    usage: nullable(fc.constant({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })),
    error: nullable(fc.constant({ message: 'boom' })),
    x_groq: nullable(fc.constant({ id: 'g' })),
    vendor: fc.oneof(fc.constant('v'), fc.constant({ nested: true })),
    created2: fc.constant(1),
  },
  { requiredKeys: ['id', 'object', 'created', 'model'] },
);
/** A chunk: its head fields, `choices` (mostly last, mostly one), sometimes a field after `choices`. */
const chunk = fc
  .tuple(
    head,
    fc.oneof(
      { weight: 8, arbitrary: fc.array(choice, { minLength: 1, maxLength: 1 }) },
      fc.array(choice, { maxLength: 2 }),
    ),
    maybe(fc.record({ obfuscation: str }, { requiredKeys: ['obfuscation'] })),
    fc.boolean(),
  )
  .map(([h, choices, after, spaced]) => {
    const value = { ...h, choices, ...after };
    return spaced ? JSON.stringify(value, null, 1) : JSON.stringify(value);
  });
/** Mostly the common shape, so the scanner's paths are taken: a text, reasoning or tool-argument delta. */
const common = fc
  .tuple(
    fc.constantFrom('content', 'reasoning_content', 'tool_calls', 'role'),
    str,
    fc.nat(2),
    fc.boolean(),
    fc.constantFrom(HEAD, HEAD.replace('kimi-k2', 'kimi-k3')),
  )
  .map(([key, value, at, logprobs, top]) => {
    const d =
      key === 'tool_calls'
        ? `{"tool_calls":[{"index":${at},"function":{"arguments":${JSON.stringify(value)}}}]}`
        : key === 'role'
          ? `{"role":"assistant","content":${JSON.stringify(value)}}`
          : `{"${key}":${JSON.stringify(value)}}`;
    return `${top}[{"index":${at},"delta":${d}${logprobs ? ',"logprobs":null' : ''},"finish_reason":null}]}`;
  });
/** A text with a few characters inserted, removed or replaced (JSON's syntax characters most of all). */
const mutated = (arb: fc.Arbitrary<string>) =>
  fc
    .tuple(
      arb,
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.nat(2),
          fc.constantFrom('"', '\\', ',', '}', ']', '{', '[', ':', '0', '1', 'n', ' ', '\n', 'x', 'e', '.', '-'),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    )
    .map(([data, edits]) => {
      let out = data;
      for (const [where, how, ch] of edits) {
        const at = where % (out.length + 1);
        out =
          how === 0
            ? out.slice(0, at) + ch + out.slice(at)
            : how === 1
              ? out.slice(0, at) + out.slice(at + 1)
              : out.slice(0, at) + ch + out.slice(at + 1);
      }
      return out;
    });
const stream = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: common },
    { weight: 2, arbitrary: chunk },
    { weight: 2, arbitrary: mutated(common) },
    mutated(chunk),
  ),
  { minLength: 1, maxLength: 12 },
);

describe('createChunkScanner', () => {
  it('takes the common chunk shapes, and returns what JSON.parse returns', () => {
    const scanner = createChunkScanner();
    const datas = [
      `${HEAD}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      text('Hello'),
      text('a "quoted"\nline\tand \\ 你好 😀'),
      text('a text long enough not to be sliced from its event'),
      `${HEAD}[{"index":0,"delta":{"content":null,"reasoning_content":"think"},"logprobs":null,"finish_reason":null}]}`,
      `${HEAD}[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"q\\":"}}]},"finish_reason":null}]}`,
      `${HEAD}[{"index":2,"delta":{},"finish_reason":null}]}`,
      `${HEAD}[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}],"usage":null}`, // DeepSeek
      `${HEAD}[{"index":0,"delta":{"reasoning_content":"y"}}],"system_fingerprint":"fp"}`, // xAI
    ];
    const earlier: unknown[] = [];
    for (const data of datas) {
      const scanned = scanner.scan(data);
      expect(agree(scanned, data, earlier)).toBe(true);
      earlier.push(scanned);
    }
  });

  it('a chunk like the last one but for its string reuses nothing of a head learned since (found by the fuzzer)', () => {
    const scanner = createChunkScanner();
    const other = HEAD.replace('kimi-k2', 'kimi-k3');
    const reasoning = (top: string) =>
      `${top}[{"index":1,"delta":{"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`;
    const datas = [
      reasoning(HEAD),
      `${other}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      reasoning(HEAD),
    ];
    const earlier: unknown[] = [];
    for (const data of datas) {
      const scanned = scanner.scan(data);
      expect(agree(scanned, data, earlier)).toBe(true);
      earlier.push(scanned);
    }
  });

  it('leaves everything else to the plain path', () => {
    const scanner = createChunkScanner();
    expect(scanner.scan(text('x'))).toBeDefined();
    for (const data of [
      `${HEAD}[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`, // a finish reason
      `${HEAD}[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"usage":{"total_tokens":1}}`, // an object
      `${HEAD}[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"choices":[]}`, // choices again, last wins
      `${HEAD}[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"ch\u006fices":[]}`, // the same, escaped
      `${HEAD}[{"index":0,"delta":{"content":"x","content":"y"},"finish_reason":null}]}`, // a repeated key
      `${HEAD}[{"index":0,"delta":{"content":"x","x":1},"finish_reason":null}]}`, // an unknown delta field
      `${HEAD}[{"index":01,"delta":{"content":"x"},"finish_reason":null}]}`, // not JSON
      `${HEAD}[{"index":0,"delta":{"content":"x\u0001"},"finish_reason":null}]}`, // a raw control character
      `${HEAD}[{"index":0,"delta":{"content":"x\\"},"finish_reason":null}]}`, // an unterminated string
      `${HEAD}[{"index":0,"delta":{"content":"\\x"},"finish_reason":null}]}`, // a bad escape
      `{"id":{"a":1},"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`, // an object in the head
      `{"error":"e","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`, // an error
      `{"id":1,"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`, // a head the schema refuses
      `{"__proto__":"p","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`, // zod drops this key
      `{"x":{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}}`, // choices not at the top level
    ]) {
      expect([data, scanner.scan(data)]).toEqual([data, undefined]);
    }
  });

  it('refuses text after the choices that would extend a number put in their place (found in review)', async () => {
    // The head and tail are checked by parsing them around a sentinel for the choices: a number sentinel (-2) followed
    // by `e0` or `.0` is still that number, so the tail `e0}` of a chunk that is not JSON passed the check.
    const choices = '[{"index":0,"delta":{"content":"x"},"finish_reason":null}]';
    const bad = [
      `${HEAD}${choices}e0}`,
      `${HEAD}${choices}.0}`,
      `${HEAD}${choices}E+00,"usage":null}`,
      `${HEAD}${choices}.0e5}`,
    ];
    for (const data of bad) {
      expect(() => JSON.parse(data)).toThrow(SyntaxError);
      expect([data, createChunkScanner().scan(data)]).toEqual([data, undefined]);
      // after a good chunk has taught the scanner the head (and a template)
      const scanner = createChunkScanner();
      expect(scanner.scan(text('a'))).toBeDefined();
      expect([data, scanner.scan(data)]).toEqual([data, undefined]);
      const events: SseEvent[] = [{ data: text('a') }, { data }, { data: '[DONE]' }];
      await expect(lastValueFrom(from(events).pipe(decodeChunk(), toArray()))).rejects.toMatchObject({
        code: 'malformed_json',
      });
    }
  });

  it('differential: on any stream of chunks and near-chunks, whatever it returns equals the plain path', () => {
    let taken = 0;
    fc.assert(
      fc.property(stream, (datas) => {
        const scanner = createChunkScanner();
        const earlier: unknown[] = [];
        for (const data of datas) {
          const scanned = scanner.scan(data);
          if (agree(scanned, data, earlier)) {
            taken++;
            earlier.push(scanned);
          }
        }
      }),
      { numRuns: 500 },
    );
    expect(taken).toBeGreaterThan(500); // the property is not vacuous: the common shapes were scanned
  });

  it('differential: decodeChunk gives the chunks of JSON.parse + the schema, or the same error as without a match', async () => {
    const decode = (events: SseEvent[]) =>
      lastValueFrom(from(events).pipe(decodeChunk(), toArray())).then(
        (value) => ({ value }),
        (error: { code: string }) => ({ error: error.code }),
      );
    await fc.assert(
      fc.asyncProperty(stream, async (datas) => {
        const events: SseEvent[] = [...datas.map((data) => ({ data })), { data: '[DONE]' }];
        const expected: unknown[] = [];
        let failure: string | undefined;
        for (const data of datas) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(data);
          } catch {
            failure = 'malformed_json';
            break;
          }
          if (typeof parsed === 'object' && parsed !== null && (parsed as { error?: unknown }).error != null) {
            failure = 'upstream_error';
            break;
          }
          const result = ChatCompletionChunk.safeParse(parsed);
          if (!result.success) {
            failure = 'schema_violation';
            break;
          }
          // The plain path: the parsed object itself when the structural check passes, else zod's output; usage lifted.
          const value = (matchesChunkShape(parsed) ? parsed : result.data) as {
            usage?: unknown;
            x_groq?: { usage?: unknown } | null;
            choices: Array<{ usage?: unknown }>;
          };
          if (value.choices == null) value.choices = [];
          const fields = value as Record<string, unknown>;
          for (const key of ['id', 'model', 'system_fingerprint'])
            if (typeof fields[key] === 'string') fields[key] = redactSecrets(fields[key] as string); // as decodeChunk does
          if (value.usage == null) {
            const lifted = value.x_groq?.usage ?? value.choices.find((c) => c.usage != null)?.usage;
            if (lifted != null) value.usage = lifted;
          }
          expected.push(value);
        }
        const got = await decode(events);
        if (failure === undefined) {
          expect(got).toStrictEqual({ value: expected });
          expect(JSON.stringify(got)).toBe(JSON.stringify({ value: expected }));
        } else expect('error' in got).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});

describe('createChunkScanner: string literals as providers escape them', () => {
  const DEEPSEEK = '{"id":"f6117a0b","object":"chat.completion.chunk","created":1764657993,"model":"deepseek-chat","system_fingerprint":"fp_1","choices":[{"index":0,"delta":';
  const chunkWith = (literal: string, field: string) => `${DEEPSEEK}{"${field}":${literal}},"logprobs":null,"finish_reason":null}],"usage":null}`;

  it('reads \\/, \\u00e9, \\uD83D\\uDE00, uppercase hex, raw non-ASCII and escaped control characters as JSON.parse does, first chunk or by the template', () => {
    let scanned = 0;
    fc.assert(
      fc.property(fc.array(escapedText, { minLength: 1, maxLength: 6 }), fc.constantFrom('content', 'reasoning_content'), (texts, field) => {
        const scanner = createChunkScanner();
        const earlier: unknown[] = [];
        for (const [text, forms] of texts) {
          const data = chunkWith(escapeLiteral(text, forms), field);
          const chunk = scanner.scan(data);
          if (!agree(chunk, data, earlier)) continue;
          expect((chunk as { choices: Array<{ delta: Record<string, unknown> }> }).choices[0]!.delta[field]).toBe(text);
          earlier.push(chunk);
          scanned++;
        }
      }),
      { numRuns: 300 },
    );
    expect(scanned).toBeGreaterThan(500); // not vacuous: the scanner took them
  });
});
