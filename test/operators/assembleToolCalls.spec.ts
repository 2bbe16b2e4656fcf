import fc from 'fast-check';
import { Observable, lastValueFrom, map, mergeMap, of, take, tap, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { isConfigError, isStreamProtocolError, isToolCallError, type ToolCallError } from '../../src/core/errors';
import { assembleToolCalls } from '../../src/operators/assembleToolCalls';
import type { AssembledToolCall } from '../../src/operators/AssembledToolCall';
import type { AssembleToolCallsConfig } from '../../src/operators/AssembleToolCallsConfig';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import type { ChatCompletionChunk, ToolCallDelta } from '../../src/core/schemas/upstream';
import { chunkOf } from '../helpers/chunkOf';
import { FIXTURE_NAMES, readFixture, type FixtureName } from '../helpers/readFixture';

const call = (id: string, name: string, args: string, choiceIndex = 0, type = 'function'): AssembledToolCall => ({
  id,
  type,
  function: { name, arguments: args },
  choiceIndex,
});
const start = (index: number, id: string, name: string, args = ''): ToolCallDelta => ({
  index,
  id,
  type: 'function',
  function: { name, arguments: args },
});
const more = (index: number, args: string): ToolCallDelta => ({ index, function: { arguments: args } });

/** Runs chunks through the operator; resolves with the calls and the error (if any). */
const run = (chunks: ChatCompletionChunk[], config?: AssembleToolCallsConfig) =>
  new Promise<{ calls: AssembledToolCall[]; error?: unknown }>((resolve) => {
    const calls: AssembledToolCall[] = [];
    of(...chunks)
      .pipe(assembleToolCalls(config))
      .subscribe({
        next: (c) => calls.push(c),
        error: (error: unknown) => resolve({ calls, error }),
        complete: () => resolve({ calls }),
      });
  });

/** The fixture through parseSse → decodeChunk → assembleToolCalls; records after how many chunks each call came. */
const fromFixture = (name: FixtureName) =>
  new Promise<{ calls: Array<{ call: AssembledToolCall; afterChunks: number }>; chunks: number; error?: unknown }>(
    (resolve) => {
      const calls: Array<{ call: AssembledToolCall; afterChunks: number }> = [];
      let chunks = 0;
      of(readFixture(name))
        .pipe(
          parseSse(),
          decodeChunk(),
          tap(() => chunks++),
          assembleToolCalls(),
        )
        .subscribe({
          next: (c) => calls.push({ call: c, afterChunks: chunks }),
          error: (error: unknown) => resolve({ calls, chunks, error }),
          complete: () => resolve({ calls, chunks }),
        });
    },
  );

describe('assembleToolCalls', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('marbles', () => {
    const values = {
      a: chunkOf.tools([start(0, 'call_1', 'f', '{"x":')]),
      b: chunkOf.tools([more(0, '1}')]),
      c: chunkOf.tools([start(1, 'call_2', 'g', '{}')]),
      d: chunkOf.finish('tool_calls'),
      t: chunkOf.content('text'),
    };
    const x = call('call_1', 'f', '{"x":1}');
    const y = call('call_2', 'g', '{}');

    it('emits a call when a different call starts, and the last when its choice finishes', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-t-a-b-c-d--|', values);
        expectObservable(source.pipe(assembleToolCalls())).toBe('-------x-y--|', { x, y });
        expectSubscriptions(source.subscriptions).toBe('^-----------!');
      });
    });

    it('emits the calls still pending when the source completes', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a-b---|', values);
        expectObservable(source.pipe(assembleToolCalls())).toBe('-------(x|)', { x });
      });
    });

    it('never emits because the arguments parse as JSON: {"q":"x"} then ,"limit":10} is one call', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a-b-c-|', {
          a: chunkOf.tools([start(0, 'call_q', 'search', '{"q":"x"}')]),
          b: chunkOf.tools([more(0, ',"limit":10}')]),
          c: chunkOf.finish('tool_calls'),
        });
        expectObservable(source.pipe(assembleToolCalls())).toBe('-----z-|', {
          z: call('call_q', 'search', '{"q":"x"},"limit":10}'),
        });
      });
    });

    it('passes a source error through and drops the pending (possibly incomplete) calls', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a-b-#', values, new Error('cut'));
        expectObservable(source.pipe(assembleToolCalls())).toBe('-----#', undefined, new Error('cut'));
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('errors with a ToolCallError and unsubscribes the source when a completed call fails its schema', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a-b-c-d-|', values);
        const schemas = { f: z.object({ x: z.string() }) };
        const result = source.pipe(
          assembleToolCalls({ schemas }),
          map(() => 'value'),
        );
        expectObservable(result).toBe(
          '-----#',
          undefined,
          expect.objectContaining({ name: 'ToolCallError', functionName: 'f', toolCallId: 'call_1' }),
        );
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('does not break unsubscription chains', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const source = hot('-a-b-c-b-d-|', values);
        const result = source.pipe(
          mergeMap((v) => of(v)),
          assembleToolCalls(),
          mergeMap((v) => of(v)),
        );
        expectObservable(result, '^------!').toBe('-----x-', { x });
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });

    it('keeps state per subscription', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const result = cold('-a-b-|', values).pipe(assembleToolCalls());
        expectObservable(result).toBe('-----(x|)', { x });
        expectObservable(result).toBe('-----(x|)', { x });
      });
    });
  });

  it('stops a synchronous firehose when the consumer takes what it needs', () => {
    let produced = 0;
    const firehose = new Observable<ChatCompletionChunk>((subscriber) => {
      for (let i = 0; !subscriber.closed; i++) {
        produced++;
        subscriber.next(chunkOf.tools([start(i, `call_${i}`, 'f', '{}')]));
        if (i > 10_000) throw new Error('the firehose was not stopped');
      }
    });
    const seen: string[] = [];
    firehose.pipe(assembleToolCalls(), take(3)).subscribe((c) => seen.push(c.id));
    expect(seen).toEqual(['call_0', 'call_1', 'call_2']);
    expect(produced).toBe(4);
  });

  it('refuses a config that is not an object, and schemas that are not zod schemas, telling how to fix it', () => {
    const bad = (config: unknown) => {
      try {
        assembleToolCalls(config as AssembleToolCallsConfig);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(isConfigError(bad(null))).toBe(true);
    expect(isConfigError(bad({ schemas: 3 }))).toBe(true);
    const error = bad({ schemas: { get_weather: { type: 'object' } } }) as Error;
    expect(isConfigError(error)).toBe(true);
    expect(error.message).toContain('schemas.get_weather is not a zod schema');
    expect(bad({ schemas: { f: z.string() } })).toBeUndefined();
  });

  describe('cases', () => {
    it('validates arguments with a schema into parsedArguments', async () => {
      const { calls, error } = await run(
        [
          chunkOf.tools([start(0, 'call_w', 'get_weather', '{"city":')]),
          chunkOf.tools([more(0, '"北京"}')]),
          chunkOf.finish('tool_calls'),
        ],
        { schemas: { get_weather: z.object({ city: z.string() }) } },
      );
      expect(error).toBeUndefined();
      expect(calls).toEqual([
        { ...call('call_w', 'get_weather', '{"city":"北京"}'), parsedArguments: { city: '北京' } },
      ]);
    });

    it('reports invalid JSON as a ToolCallError naming function and id', async () => {
      const { calls, error } = await run(
        [chunkOf.tools([start(0, 'call_q', 'search', '{"q":"x"}')]), chunkOf.tools([more(0, ',"limit":10}')])],
        {
          schemas: { search: z.object({ q: z.string(), limit: z.number() }) },
        },
      );
      expect(calls).toEqual([]);
      expect(isToolCallError(error)).toBe(true);
      expect((error as ToolCallError).functionName).toBe('search');
      expect((error as ToolCallError).toolCallId).toBe('call_q');
    });

    it('assembles CJK arguments split inside a character sequence, verbatim', async () => {
      const args = '{"city":"北京市朝阳区","note":"天气怎么样？🌧"}';
      const pieces = Array.from(args); // one code point per fragment
      const { calls } = await run([
        chunkOf.tools([start(0, 'functions.get_weather:0', 'get_weather')]),
        ...pieces.map((p) => chunkOf.tools([more(0, p)])),
        chunkOf.finish('tool_calls'),
      ]);
      expect(calls).toEqual([call('functions.get_weather:0', 'get_weather', args)]);
      expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ city: '北京市朝阳区', note: '天气怎么样？🌧' });
    });

    it('keeps ids verbatim, whatever their format', async () => {
      const ids = [
        'call_00_JQSxBvRa1RcDq7eI2q5hWkPn',
        'get_weather:0',
        'functions.get_weather:0',
        'get_weather_0',
        '$web_search:0',
        ' spaced id ',
      ];
      const { calls } = await run([
        ...ids.map((id, i) => chunkOf.tools([start(i, id, 'f', '{}')])),
        chunkOf.finish('tool_calls'),
      ]);
      expect(calls.map((c) => c.id)).toEqual(ids);
    });

    it('keeps the calls of interleaved choices apart (n = 2)', async () => {
      const { calls } = await run([
        chunkOf.tools([start(0, 'a0', 'f', '{"c":')], 0),
        chunkOf.tools([start(0, 'b0', 'g', '[')], 1),
        chunkOf.tools([more(0, '0}')], 0),
        chunkOf.tools([more(0, ']')], 1),
        chunkOf.finish('tool_calls', 1),
        chunkOf.tools([start(1, 'a1', 'h', '{}')], 0),
        chunkOf.finish('tool_calls', 0),
      ]);
      expect(calls).toEqual([call('b0', 'g', '[]', 1), call('a0', 'f', '{"c":0}', 0), call('a1', 'h', '{}', 0)]);
    });
  });

  describe('provider transcripts (parseSse → decodeChunk → assembleToolCalls)', () => {
    it('deepseek-parallel-tools: two calls, fine fragments, the first emitted when the second starts', async () => {
      const { calls, chunks, error } = await fromFixture('deepseek-parallel-tools');
      expect(error).toBeUndefined();
      expect(calls.map((c) => c.call)).toEqual([
        call('call_00_JQSxBvRa1RcDq7eI2q5hWkPn', 'get_weather', '{"city": "北京", "unit": "celsius"}'),
        call('call_01_Xk9TQm3uYv8wLp2Ns7Rd4FhZ', 'get_weather', '{"city": "上海", "unit": "celsius"}'),
      ]);
      const secondStarts = 2 + Math.ceil('{"city": "北京", "unit": "celsius"}'.length / 3) + 1;
      expect(calls.map((c) => c.afterChunks)).toEqual([secondStarts, chunks]);
    });

    it('moonshot-tool-no-index: fragments without index belong to the latest call; pretty-printed arguments kept', async () => {
      const { calls, chunks, error } = await fromFixture('moonshot-tool-no-index');
      expect(error).toBeUndefined();
      expect(calls).toEqual([
        {
          call: call('get_weather:0', 'get_weather', '{\n    "city": "北京",\n    "date": "今天"\n}'),
          afterChunks: chunks,
        },
      ]);
    });

    it('kimi-builtin-search: builtin_function $web_search, whole arguments at once, type verbatim', async () => {
      const { calls, error } = await fromFixture('kimi-builtin-search');
      expect(error).toBeUndefined();
      expect(calls.map((c) => c.call)).toEqual([
        call(
          '$web_search:0',
          '$web_search',
          '{"search_result":{"search_id":"8f1e2d3c4b5a"},"usage":{"total_tokens":1203}}',
          0,
          'builtin_function',
        ),
      ]);
    });

    // insufficient-system-resource ends with [DONE]: failing the answer is toOutput's business, not this operator's.
    const noTools: FixtureName[] = [
      'insufficient-system-resource',
      'deepseek-plain',
      'deepseek-keepalive-queue',
      'deepseek-reasoner',
      'moonshot-plain',
      'moonshot-usage-twice',
      'moonshot-n2',
      'openai-usage-chunk-only',
      'eof-after-finish-reason',
      'azure-prompt-filter',
      'openrouter-reasoning',
      'groq-x-groq-usage',
      'mistral-thinking-parts',
      'openai-refusal',
    ];
    it.each(noTools)('%s: no tool calls, completes', async (name) => {
      const { calls, chunks, error } = await fromFixture(name);
      expect(error).toBeUndefined();
      expect(chunks).toBeGreaterThan(2);
      expect(calls).toEqual([]);
    });

    const failures = FIXTURE_NAMES.filter(
      (name) =>
        !noTools.includes(name) &&
        !['deepseek-parallel-tools', 'moonshot-tool-no-index', 'kimi-builtin-search'].includes(name),
    );
    it.each(failures)('%s: the upstream failure passes through as a chatflux error', async (name) => {
      const { calls, error } = await fromFixture(name);
      expect(calls).toEqual([]);
      expect(error).toMatchObject({ name: expect.stringMatching(/^(StreamProtocolError|UpstreamStreamError)$/) });
    });

    it('drops a call that was pending when the stream was cut (decodeChunk: stream_incomplete)', async () => {
      const cut =
        readFixture('deepseek-parallel-tools').toString('utf8').split('\n\n').slice(0, 10).join('\n\n') + '\n\n';
      const calls: AssembledToolCall[] = [];
      const error = await new Promise<unknown>((resolve) =>
        of(cut)
          .pipe(parseSse(), decodeChunk(), assembleToolCalls())
          .subscribe({ next: (c) => calls.push(c), error: resolve, complete: () => resolve(undefined) }),
      );
      expect(isStreamProtocolError(error)).toBe(true);
      expect(calls).toEqual([]);
    });
  });

  describe('properties', () => {
    type Style = 'deepseek' | 'moonshot' | 'whole';
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.constantFrom('{"city":"北京"}', '{"q":"x"}', '{\n  "a": [1, 2]\n}', ''),
    );
    const idArb = fc.oneof(
      fc.constantFrom('call_00_JQSx', 'get_weather:0', 'functions.get_weather:0', 'get_weather_0', '$web_search:0'),
      fc.string({ minLength: 1, maxLength: 12 }),
    );
    /** Cut points → pieces (possibly empty pieces). */
    const split = (s: string, cuts: number[]) => {
      const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b);
      const pieces: string[] = [];
      let last = 0;
      for (const p of points) {
        pieces.push(s.slice(last, p));
        last = p;
      }
      pieces.push(s.slice(last));
      return pieces;
    };
    const callSpec = fc.record({
      name: fc.constantFrom('get_weather', 'search', '$web_search'),
      args: text,
      cuts: fc.array(fc.nat(), { maxLength: 8 }),
    });

    /** The fragments a provider of `style` sends for the `k`-th call of a choice, one array per chunk. */
    const fragmentsOf = (
      style: Style,
      k: number,
      id: string,
      spec: { name: string; args: string; cuts: number[] },
    ): ToolCallDelta[][] => {
      if (style === 'whole')
        return [[{ index: k, id, type: 'function', function: { name: spec.name, arguments: spec.args } }]];
      const pieces = split(spec.args, spec.cuts);
      const head: ToolCallDelta = { id, type: 'function', function: { name: spec.name, arguments: '' } };
      if (style === 'deepseek')
        return [[{ ...head, index: k }], ...pieces.map((p) => [{ index: k, function: { arguments: p } }])];
      return [[head], ...pieces.map((p) => [{ function: { arguments: p } }])];
    };

    it('reassembles arbitrary fragmentations exactly, once each, with ids verbatim, in every provider style', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Style>('deepseek', 'moonshot', 'whole'),
          fc
            .uniqueArray(idArb, { minLength: 1, maxLength: 4 })
            .chain((ids) =>
              fc.tuple(fc.constant(ids), fc.array(callSpec, { minLength: ids.length, maxLength: ids.length })),
            ),
          fc.boolean(),
          async (style, [ids, specs], finish) => {
            const chunks = ids.flatMap((id, k) =>
              fragmentsOf(style, k, id, specs[k]!).map((fragments) => chunkOf.tools(fragments)),
            );
            if (finish) chunks.push(chunkOf.finish('tool_calls'));
            const { calls, error } = await run(chunks);
            expect(error).toBeUndefined();
            expect(calls).toEqual(ids.map((id, k) => call(id, specs[k]!.name, specs[k]!.args)));
          },
        ),
        { numRuns: 150 },
      );
    });

    it('interleaved n = 2: each call complete, in its choice, as soon as its successor or finish arrives', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(callSpec, { minLength: 1, maxLength: 3 }),
          fc.array(callSpec, { minLength: 1, maxLength: 3 }),
          fc.array(fc.boolean(), { minLength: 80, maxLength: 80 }),
          async (specs0, specs1, coin) => {
            const perChoice = [specs0, specs1].map((specs, choice) => [
              ...specs.flatMap((spec, k) =>
                fragmentsOf('deepseek', k, `c${choice}_${k}`, spec).map((f) => ({
                  chunk: chunkOf.tools(f, choice),
                  starts: f[0]!.id,
                })),
              ),
              { chunk: chunkOf.finish('tool_calls', choice), starts: undefined },
            ]);
            // Merge both sequences, keeping each one's order, as the coins say.
            const merged: ChatCompletionChunk[] = [];
            const queues = perChoice.map((q) => [...q]);
            let i = 0;
            while (queues[0]!.length > 0 || queues[1]!.length > 0) {
              const pick = queues[0]!.length === 0 ? 1 : queues[1]!.length === 0 ? 0 : coin[i++ % coin.length] ? 1 : 0;
              merged.push(queues[pick]!.shift()!.chunk);
            }
            const emittedAt: Array<{ call: AssembledToolCall; at: number }> = [];
            let at = -1;
            await lastValueFrom(
              of(...merged).pipe(
                tap(() => at++),
                assembleToolCalls(),
                tap((c) => emittedAt.push({ call: c, at })),
                toArray(),
              ),
            );
            for (const [choice, specs] of [specs0, specs1].entries()) {
              const mine = emittedAt.filter((e) => e.call.choiceIndex === choice);
              expect(mine.map((e) => e.call)).toEqual(
                specs.map((spec, k) => call(`c${choice}_${k}`, spec.name, spec.args, choice)),
              );
              // Call k comes out with the chunk that starts call k+1 of its choice, or with its choice's finish chunk.
              const boundaries = merged
                .map((chunk, position) => ({ chunk, position }))
                .filter(
                  ({ chunk }) =>
                    chunk.choices[0]!.index === choice &&
                    (chunk.choices[0]!.finish_reason || chunk.choices[0]!.delta?.tool_calls?.[0]?.id),
                )
                .map(({ position }) => position);
              expect(mine.map((e) => e.at)).toEqual(boundaries.slice(1));
            }
          },
        ),
        { numRuns: 100 },
      );
    });
  });
});
