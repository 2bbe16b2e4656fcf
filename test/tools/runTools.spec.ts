/**
 * runTools: the tool loop's logic in virtual time (TestScheduler) over scripted chunk streams — the event order, tools
 * running while the model still writes, cancellation reaching the request and every running tool, the parallel limit,
 * results in the model's order, validation told to the model, approval, the stop rules and the history providers
 * accept. The loop against a real server (the emulator) is runTools.emulator.spec.ts.
 */
import fc from 'fast-check';
import { lastValueFrom, map, NEVER, Observable, of, throwError, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import {
  isAbortedError,
  isConfigError,
  isToolCallError,
  isToolExecutionError,
  UpstreamHttpError,
  type ToolExecutionError,
} from '../../src/core/errors';
import type { ChatCompletionChunk, ChatCompletionRequest, ToolCallDelta, Usage } from '../../src/core/schemas/upstream';
import { toErrorResponse } from '../../src/core/toErrorResponse';
import { defineTool } from '../../src/tools/defineTool';
import type { RunToolsConfig } from '../../src/tools/RunToolsConfig';
import { runTools } from '../../src/tools/runTools';
import type { ToolLoopEvent, ToolLoopFinishEvent, ToolLoopToolResultEvent } from '../../src/tools/ToolLoopEvent';
import { toToolLoopChunks } from '../../src/tools/toToolLoopChunks';
import { toToolLoopMessages } from '../../src/tools/toToolLoopMessages';
import { toToolLoopOutput } from '../../src/tools/toToolLoopOutput';
import { chunkOf } from '../helpers/chunkOf';

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

const start = (index: number, id: string, name: string, args = ''): ChatCompletionChunk =>
  chunkOf.tools([{ index, id, type: 'function', function: { name, arguments: args } } as ToolCallDelta]);
const more = (index: number, args: string): ChatCompletionChunk => chunkOf.tools([{ index, function: { arguments: args } }]);
const usage = (prompt: number, completion: number): Usage => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
const reasoning = (text: string): ChatCompletionChunk => chunkOf.delta({ reasoning_content: text });
const text = (piece: string, finish: string | null = null): ChatCompletionChunk => chunkOf.delta({ content: piece }, 0, finish);
const done = (reason: string, used?: Usage): ChatCompletionChunk => chunkOf.finish(reason, 0, used);

/** One letter per event type, for marbles. */
const LETTER: Record<ToolLoopEvent['type'], string> = {
  'step-start': 'S',
  reasoning: 'R',
  text: 't',
  'tool-call-delta': 'D',
  'tool-call': 'C',
  'tool-result': 'T',
  'step-finish': 'F',
  finish: 'E',
};
const letters = map((event: ToolLoopEvent) => LETTER[event.type]);

/** A client whose `chunks` answers step k with `steps[k]`; it records each request (a deep copy). */
function scripted(steps: Array<Observable<ChatCompletionChunk>>) {
  const requests: ChatCompletionRequest[] = [];
  const client = {
    chunks: (request: unknown) => {
      requests.push(JSON.parse(JSON.stringify(request)) as ChatCompletionRequest);
      return steps[requests.length - 1] ?? throwError(() => new Error(`no step ${requests.length - 1} scripted`));
    },
  };
  return { client, requests };
}

const QUESTION = { messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };
const City = z.object({ city: z.string() });
const weather = (execute: (args: { city: string }, context: { signal: AbortSignal }) => unknown) =>
  defineTool({ description: 'The weather of a city', schema: City, execute });

const events = (source: Observable<ToolLoopEvent>) => lastValueFrom(source.pipe(toArray()));
const finishOf = (all: ToolLoopEvent[]) => all.at(-1) as ToolLoopFinishEvent;
const resultsOf = (all: ToolLoopEvent[]) => all.filter((e): e is ToolLoopToolResultEvent => e.type === 'tool-result');

describe('runTools', () => {
  describe('the loop in virtual time', () => {
    it('streams a step, runs the call once complete, sends the result back, and ends with the answer', () => {
      scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const step0 = cold('--r-a-b-c|', {
          r: reasoning('需要天气'),
          a: start(0, 'call_00_a', 'get_weather', '{"city":'),
          b: more(0, '"Paris"}'),
          c: done('tool_calls', usage(10, 5)),
        });
        const tool = cold('---x|', { x: { celsius: 21 } });
        const step1 = cold('-----d-e|', { d: text('晴，'), e: text('21°C', 'stop') });
        const { client } = scripted([step0, step1]);
        const loop = runTools(client, QUESTION, { tools: { get_weather: weather(() => tool) } });
        expectObservable(loop.pipe(letters)).toBe('S-R-D-D-C---(TFS)t-t(E|)');
        expectSubscriptions(step0.subscriptions).toBe('^--------!');
        expectSubscriptions(tool.subscriptions).toBe('--------^---!');
        expectSubscriptions(step1.subscriptions).toBe('------------^-------!');
      });
    });

    it('runs a call while the model still writes the next one, and unsubscribing aborts both the request and the tool', () => {
      const signals: AbortSignal[] = [];
      scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
        const step0 = cold('-a---b---c---d|', {
          a: start(0, 'call_1', 'get_weather', '{"city":"Paris"}'),
          b: start(1, 'call_2', 'get_weather', '{"city":'),
          c: more(1, '"Rome"'),
          d: more(1, '}'),
        });
        const slow = hot('-'); // never answers
        const { client } = scripted([step0]);
        const loop = runTools(client, QUESTION, {
          tools: {
            get_weather: weather((_args, { signal }) => {
              signals.push(signal);
              return slow;
            }),
          },
        });
        expectObservable(loop.pipe(letters), '-----------!').toBe('SD---(DC)D');
        expectSubscriptions(step0.subscriptions).toBe('^----------!'); // the upstream request is cancelled…
        expectSubscriptions(slow.subscriptions).toBe('-----^-----!'); // …and so is the tool that started at `b`
      });
      expect(signals.map((signal) => signal.aborted)).toEqual([true]);
    });

    it('runs at most `parallel` calls at once; the results come in the order of the calls', () => {
      scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const step0 = cold('(abc|)', {
          a: start(0, 'call_1', 'slow', '{}'),
          b: start(1, 'call_2', 'fast', '{}'),
          c: done('tool_calls'),
        });
        const slowRun = cold('--------x|', { x: 'slow done' });
        const fastRun = cold('---y|', { y: 'fast done' });
        const { client } = scripted([step0, cold('(e|)', { e: text('ok', 'stop') })]);
        const tools = {
          slow: defineTool({ schema: z.object({}), execute: () => slowRun }),
          fast: defineTool({ schema: z.object({}), execute: () => fastRun }),
        };
        expectObservable(runTools(client, QUESTION, { tools, parallel: 1 }).pipe(letters)).toBe('(SDDC)---(TC)(TFStE|)');
        expectSubscriptions(slowRun.subscriptions).toBe('^--------!');
        expectSubscriptions(fastRun.subscriptions).toBe('---------^---!');
      });
    });

    it('waits for an approval given later (an Observable), and tells the model of a refusal with its reason', () => {
      let requests: ChatCompletionRequest[] = [];
      scheduler().run(({ cold, expectObservable }) => {
        const step0 = cold('(abc|)', {
          a: start(0, 'call_1', 'get_weather', '{"city":"Paris"}'),
          b: start(1, 'call_2', 'get_weather', '{"city":"Pyongyang"}'),
          c: done('tool_calls'),
        });
        const script = scripted([step0, cold('(e|)', { e: text('ok', 'stop') })]);
        const client = script.client;
        requests = script.requests;
        const approve: RunToolsConfig['approve'] = (call) =>
          cold('---------v|', { v: (call.input as { city: string }).city === 'Paris' ? true : 'not that city' });
        const loop = runTools(client, QUESTION, { tools: { get_weather: weather(({ city }) => `sunny in ${city}`) }, approve });
        expectObservable(loop.pipe(letters)).toBe('(SDDCC)--(TTFStE|)');
      });
      expect(requests[1]!.messages.slice(-2)).toEqual([
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny in Paris' },
        { role: 'tool', tool_call_id: 'call_2', content: 'The call to "get_weather" was refused: not that city' },
      ]);
    });
  });

  describe('validation: an invalid call is told to the model, not thrown', () => {
    it('invalid arguments (zod 4) become a tool message saying what is wrong, and the model corrects them in the next step', async () => {
      const executed: unknown[] = [];
      const { client, requests } = scripted([
        of(start(0, 'call_1', 'get_weather', '{"city":42}'), done('tool_calls')),
        of(start(0, 'call_2', 'get_weather', '{"city":"Paris"}'), done('tool_calls')),
        of(text('晴', 'stop')),
      ]);
      const all = await events(runTools(client, QUESTION, { tools: { get_weather: weather((args) => executed.push(args)) } }));
      const [invalid, valid] = resultsOf(all);
      expect(invalid).toMatchObject({ step: 0, outcome: 'invalid_arguments', call: { id: 'call_1', name: 'get_weather', arguments: '{"city":42}' } });
      expect(invalid!.content).toMatch(/^Error: the arguments of tool call "call_1" to "get_weather" fail its schema: city: .+Call "get_weather" again/);
      expect(isToolCallError(invalid!.error)).toBe(true);
      expect(invalid!.call.input).toBeUndefined();
      expect(valid).toMatchObject({ step: 1, outcome: 'ok', call: { input: { city: 'Paris' } } });
      expect(executed).toEqual([{ city: 'Paris' }]);
      expect(all.filter((e) => e.type === 'tool-call').map((e) => (e as { call: { id: string } }).call.id)).toEqual(['call_2']);
      expect(requests).toHaveLength(3); // the invalid call counted as a step
      expect(requests[1]!.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: invalid!.content });
      expect(finishOf(all)).toMatchObject({ stopReason: 'answer', steps: 3 });
    });

    it('arguments that are not JSON, and a tool the loop does not have, are told to the model too', async () => {
      const { client, requests } = scripted([
        of(start(0, 'call_1', 'get_weather', '{"city":'), start(1, 'call_2', 'get_time', '{}'), done('tool_calls')),
        of(text('ok', 'stop')),
      ]);
      const all = await events(runTools(client, QUESTION, { tools: { get_weather: weather(() => 'x') } }));
      expect(resultsOf(all).map((r) => [r.outcome, r.content])).toEqual([
        ['invalid_arguments', expect.stringMatching(/^Error: the arguments of tool call "call_1" to "get_weather" are not valid JSON/)],
        ['unknown_tool', 'Error: there is no tool "get_time". The tools are: get_weather.'],
      ]);
      expect(requests[1]!.messages.slice(-2).map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2']);
    });

    it('validates with a zod 3 schema too (Standard Schema), given its JSON Schema as `parameters`', async () => {
      const Zod3City = z3.object({ city: z3.string().min(2) });
      const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
      const tool = defineTool({ schema: Zod3City, parameters, execute: ({ city }) => city.toUpperCase() });
      const { client, requests } = scripted([
        of(start(0, 'call_1', 'shout', '{"city":"P"}'), start(1, 'call_2', 'shout', '{"city":"Paris"}'), done('tool_calls')),
        of(text('ok', 'stop')),
      ]);
      const all = await events(runTools(client, QUESTION, { tools: { shout: tool } }));
      expect(resultsOf(all).map((r) => [r.outcome, r.content])).toEqual([
        ['invalid_arguments', expect.stringContaining('city: String must contain at least 2 character(s)')],
        ['ok', 'PARIS'],
      ]);
      expect(requests[0]!.tools).toEqual([{ type: 'function', function: { name: 'shout', parameters } }]);
      expect(() => runTools(scripted([]).client, QUESTION, { tools: { shout: { schema: Zod3City, execute: () => 1 } } })).toThrow(
        /the schema of tools\.shout cannot say its JSON Schema \(zod 3 cannot; zod 4 can\): give the tool `parameters` too/,
      );
    });

    it("sends a zod 4 schema's JSON Schema as the function's parameters, unless the request has its own tools", async () => {
      const { client, requests } = scripted([of(text('ok', 'stop')), of(text('ok', 'stop'))]);
      await events(runTools(client, QUESTION, { tools: { get_weather: weather(() => 1) } }));
      expect(requests[0]!.tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ]);
      const own = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
      await events(runTools(client, { ...QUESTION, tools: own }, { tools: { get_weather: weather(() => 1) } }));
      expect(requests[1]!.tools).toEqual(own);
    });

    it('keeps parallel calls that reuse an index apart by their ids', async () => {
      const { client, requests } = scripted([
        of(
          start(0, 'call_a', 'get_weather', '{"city":'),
          more(0, '"Paris"}'),
          start(0, 'call_b', 'get_weather', '{"city":'),
          more(0, '"Rome"}'),
          done('tool_calls'),
        ),
        of(text('ok', 'stop')),
      ]);
      const all = await events(runTools(client, QUESTION, { tools: { get_weather: weather(({ city }) => city) } }));
      expect(resultsOf(all).map((r) => [r.call.id, r.content])).toEqual([
        ['call_a', 'Paris'],
        ['call_b', 'Rome'],
      ]);
      expect(requests[1]!.messages[1]!.tool_calls!.map((c) => [c.id, c.function.arguments])).toEqual([
        ['call_a', '{"city":"Paris"}'],
        ['call_b', '{"city":"Rome"}'],
      ]);
    });
  });

  describe('history providers accept', () => {
    it('the assistant turn keeps its reasoning_content and tool_calls (ids verbatim, content null); each tool message its tool_call_id', async () => {
      const { client, requests } = scripted([
        of(reasoning('先查天气'), reasoning('。'), start(0, 'call_00_X', 'get_weather', '{"city":"杭州"}'), done('tool_calls', usage(10, 5))),
        of(reasoning('有结果了'), text('晴', 'stop'), chunkOf.usage(usage(30, 2))),
      ]);
      const all = await events(runTools(client, QUESTION, { tools: { get_weather: weather(() => ({ sky: '晴' })) } }));
      const turn = { role: 'assistant', content: null, reasoning_content: '先查天气。', tool_calls: [{ id: 'call_00_X', type: 'function', function: { name: 'get_weather', arguments: '{"city":"杭州"}' } }] };
      expect(requests[1]!.messages).toEqual([QUESTION.messages[0], turn, { role: 'tool', tool_call_id: 'call_00_X', content: '{"sky":"晴"}' }]);
      const finish = finishOf(all);
      expect(finish.messages).toEqual([...requests[1]!.messages, { role: 'assistant', content: '晴', reasoning_content: '有结果了' }]);
      expect(finish.output).toMatchObject({ message: { role: 'assistant', content: '晴', reasoning_content: '有结果了' }, finish_reason: 'stop', usage: usage(40, 7) });
      const step = all.find((e) => e.type === 'step-finish');
      expect(step).toMatchObject({ step: 0, finishReason: 'tool_calls', usage: usage(10, 5), message: turn });
    });
  });

  describe('stop rules', () => {
    const always = (step: number) => of(start(0, `call_${step}`, 'get_weather', '{"city":"Paris"}'), done('tool_calls'));

    it('maxSteps: the last step still calling tools ends the loop there, its results in the conversation', async () => {
      const { client, requests } = scripted([0, 1, 2, 3].map(always));
      const all = await events(runTools(client, QUESTION, { tools: { get_weather: weather(() => 'sunny') }, maxSteps: 2 }));
      expect(requests).toHaveLength(2);
      const finish = finishOf(all);
      expect(finish).toMatchObject({ stopReason: 'max_steps', steps: 2, output: { finish_reason: 'tool_calls' } });
      expect(finish.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    });

    it('maxSteps defaults to 20', async () => {
      const { client, requests } = scripted(Array.from({ length: 25 }, (_, k) => always(k)));
      const all = await events(runTools(client, QUESTION, { tools: { get_weather: weather(() => 'sunny') } }));
      expect(requests).toHaveLength(20);
      expect(finishOf(all).stopReason).toBe('max_steps');
    });

    it('stopWhen: a predicate on the step', async () => {
      const { client, requests } = scripted([0, 1, 2].map(always));
      const all = await events(
        runTools(client, QUESTION, { tools: { get_weather: weather(() => 'sunny') }, stopWhen: (step) => step.toolMessages.length > 0 && step.step === 1 }),
      );
      expect(requests).toHaveLength(2);
      expect(finishOf(all)).toMatchObject({ stopReason: 'stop_when', steps: 2 });
    });

    it('a tool with endsLoop ends the loop once it ran; not when its call was invalid', async () => {
      const answer = defineTool({ schema: z.object({ text: z.string() }), endsLoop: true, execute: ({ text: said }) => said });
      const { client, requests } = scripted([
        of(start(0, 'call_1', 'final_answer', '{"text":1}'), done('tool_calls')),
        of(start(0, 'call_2', 'final_answer', '{"text":"42"}'), done('tool_calls')),
        of(text('never asked', 'stop')),
      ]);
      const all = await events(runTools(client, QUESTION, { tools: { final_answer: answer } }));
      expect(requests).toHaveLength(2);
      expect(finishOf(all)).toMatchObject({ stopReason: 'tool', steps: 2 });
      expect(resultsOf(all).map((r) => r.outcome)).toEqual(['invalid_arguments', 'ok']);
    });

    it('approve: false or a reason refuses the call, and the model is told', async () => {
      const { client } = scripted([of(start(0, 'call_1', 'get_weather', '{"city":"Paris"}'), start(1, 'call_2', 'get_weather', '{"city":"Rome"}'), done('tool_calls')), of(text('ok', 'stop'))]);
      const ran: string[] = [];
      const all = await events(
        runTools(client, QUESTION, {
          tools: { get_weather: weather(({ city }) => ran.push(city)) },
          approve: async (call) => ((call.input as { city: string }).city === 'Paris' ? false : 'the user said no'),
        }),
      );
      expect(ran).toEqual([]);
      expect(resultsOf(all).map((r) => [r.outcome, r.content])).toEqual([
        ['refused', 'The call to "get_weather" was refused.'],
        ['refused', 'The call to "get_weather" was refused: the user said no'],
      ]);
    });
  });

  describe('failures and cancellation', () => {
    it('a tool that throws ends the loop with a ToolExecutionError naming the tool and the call; the other running call is aborted', async () => {
      const signals: AbortSignal[] = [];
      const boom = new Error('database down');
      const { client, requests } = scripted([
        of(start(0, 'call_1', 'slow', '{}'), start(1, 'call_2', 'broken', '{}'), done('tool_calls')),
      ]);
      const tools = {
        slow: defineTool({ schema: z.object({}), execute: (_args, { signal }) => (signals.push(signal), NEVER) }),
        broken: defineTool({
          schema: z.object({}),
          execute: async () => {
            throw boom;
          },
        }),
      };
      const error = (await events(runTools(client, QUESTION, { tools })).catch((e: unknown) => e)) as ToolExecutionError;
      expect(isToolExecutionError(error)).toBe(true);
      expect(error).toMatchObject({ code: 'tool_failed', toolName: 'broken', toolCallId: 'call_2', cause: boom });
      expect(error.message).toBe('the tool "broken" (call "call_2") failed: database down');
      expect(signals.map((s) => s.aborted)).toEqual([true]);
      expect(requests).toHaveLength(1);
      // Served, it says which tool failed, never the tool's own words.
      expect(toErrorResponse(error)).toEqual({ status: 500, body: { message: 'the tool "broken" failed', type: 'server_error', code: 'tool_failed' } });
    });

    it("toolErrors: 'report' tells the model the tool failed, and goes on", async () => {
      const { client, requests } = scripted([of(start(0, 'call_1', 'get_weather', '{"city":"Paris"}'), done('tool_calls')), of(text('sorry', 'stop'))]);
      const all = await events(
        runTools(client, QUESTION, {
          tools: {
            get_weather: weather(() => {
              throw new Error('timeout');
            }),
          },
          toolErrors: 'report',
        }),
      );
      expect(resultsOf(all)).toEqual([expect.objectContaining({ outcome: 'failed', content: 'Error: the tool "get_weather" failed: timeout' })]);
      expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: 'Error: the tool "get_weather" failed: timeout' });
    });

    it("an error of the model's request ends the loop as it is, and cancels the running tools", async () => {
      const signals: AbortSignal[] = [];
      const refused = new UpstreamHttpError(400, 'bad request');
      const upstream = new Observable<ChatCompletionChunk>((subscriber) => {
        subscriber.next(start(0, 'call_1', 'get_weather', '{"city":"Paris"}'));
        subscriber.next(start(1, 'call_2', 'get_weather', '{"city":'));
        subscriber.error(refused);
      });
      const { client } = scripted([upstream]);
      const error = await events(runTools(client, QUESTION, { tools: { get_weather: weather((_a, { signal }) => (signals.push(signal), NEVER)) } })).catch((e: unknown) => e);
      expect(error).toBe(refused);
      expect(signals.map((s) => s.aborted)).toEqual([true]);
    });

    it('callOptions.signal aborts the loop with an AbortedError, the request and the running tools', async () => {
      const controller = new AbortController();
      const signals: AbortSignal[] = [];
      const { client } = scripted([of(start(0, 'call_1', 'get_weather', '{"city":"Paris"}'), done('tool_calls'))]);
      const running = events(
        runTools(client, QUESTION, {
          tools: {
            get_weather: weather((_a, { signal }) => {
              signals.push(signal);
              setTimeout(() => controller.abort(), 1);
              return NEVER;
            }),
          },
          callOptions: { signal: controller.signal },
        }),
      ).catch((e: unknown) => e);
      expect(isAbortedError(await running)).toBe(true);
      expect(signals.map((s) => s.aborted)).toEqual([true]);
    });

    it('refuses a wrong call at once, saying how to fix it', () => {
      const { client } = scripted([]);
      const tools = { get_weather: weather(() => 1) };
      const cases: Array<[() => unknown, RegExp]> = [
        [() => runTools({} as never, QUESTION, { tools }), /`client` must be a chat client \(`createChatClient\(…\)`/],
        [() => runTools(client, { messages: [] }, { tools }), /`request` needs `messages`, at least one/],
        [() => runTools(client, { ...QUESTION, n: 2 }, { tools }), /remove `n` from the request/],
        [() => runTools(client, QUESTION, {} as never), /`config` must be an object with `tools`/],
        [() => runTools(client, QUESTION, { tools: { f: { schema: {}, execute: () => 1 } as never } }), /tools\.f needs `schema`, a Standard Schema/],
        [() => runTools(client, QUESTION, { tools: { f: { schema: City } as never } }), /tools\.f needs `execute\(args, \{ signal \}\)`/],
        [() => runTools(client, QUESTION, { tools, maxSteps: 0 }), /`maxSteps` must be an integer from 1 to 1000, got 0; omit it for 20/],
        [() => runTools(client, QUESTION, { tools, maxSteps: 5000 }), /`maxSteps` must be an integer from 1 to 1000/],
        [() => runTools(client, QUESTION, { tools, parallel: 0 }), /`parallel` must be a positive integer or Infinity/],
        [() => runTools(client, QUESTION, { tools, toolErrors: 'ignore' as never }), /`toolErrors` is 'end'/],
        [() => runTools(client, QUESTION, { tools, approve: true as never }), /`approve` must be a function/],
      ];
      for (const [call, message] of cases) {
        const error = (() => {
          try {
            call();
          } catch (e) {
            return e;
          }
          return undefined;
        })();
        expect(isConfigError(error)).toBe(true);
        expect((error as Error).message).toMatch(message);
      }
    });
  });

  describe('property: results in the order of the calls, at most `parallel` at once', () => {
    it('holds for any number of calls, any durations and any limit', () => {
      fc.assert(
        fc.property(
          fc.array(fc.nat({ max: 6 }), { minLength: 1, maxLength: 7 }),
          fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(Infinity)),
          (durations, parallel) => {
            let running = 0;
            let most = 0;
            const ids = durations.map((_, k) => `call_${k}`);
            const results: string[] = [];
            let answered: string[] = [];
            scheduler().run(({ cold, flush }) => {
              const chunks = ids.map((id, k) => start(k, id, 'wait', `{"ms":${durations[k]}}`));
              const { client, requests } = scripted([
                cold(`(${chunks.map((_, k) => String.fromCharCode(97 + k)).join('')}z|)`, {
                  ...Object.fromEntries(chunks.map((c, k) => [String.fromCharCode(97 + k), c])),
                  z: done('tool_calls'),
                }),
                cold('(e|)', { e: text('ok', 'stop') }),
              ]);
              const wait = defineTool({
                schema: z.object({ ms: z.number() }),
                execute: ({ ms }) =>
                  new Observable<number>((subscriber) => {
                    running++;
                    most = Math.max(most, running);
                    const inner = cold(`${'-'.repeat(ms)}(x|)`, { x: ms }).subscribe(subscriber);
                    return () => {
                      running--;
                      inner.unsubscribe();
                    };
                  }),
              });
              runTools(client, QUESTION, { tools: { wait }, parallel }).subscribe((e) => {
                if (e.type === 'tool-result') results.push(e.call.id);
              });
              flush();
              answered = (requests[1]?.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.tool_call_id ?? '');
            });
            expect(results).toEqual(ids);
            expect(answered).toEqual(ids);
            expect(most).toBeLessThanOrEqual(parallel);
          },
        ),
        { numRuns: 200 },
      );
    });
  });

  describe('the faces on the wires', () => {
    const loop = () => {
      const { client } = scripted([
        of(reasoning('想'), text('查一下。'), start(0, 'call_1', 'get_weather', '{"city":"Paris"}'), done('tool_calls', usage(10, 5))),
        of(text('晴', 'stop'), chunkOf.usage(usage(20, 1))),
      ]);
      return runTools(client, QUESTION, { tools: { get_weather: weather(() => ({ sky: 'clear' })) } });
    };

    it('toToolLoopChunks: the contract chunks, tool activity as the documented extensions, one done chunk with the summed usage', async () => {
      const chunks = await lastValueFrom(loop().pipe(toToolLoopChunks(), toArray()));
      expect(chunks).toEqual([
        { message: { role: 'assistant', content: '', reasoning_content: '想' }, done: false, index: 0, step: 0 },
        { message: { role: 'assistant', content: '查一下。' }, done: false, index: 1, step: 0 },
        {
          message: { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          done: false,
          index: 2,
          step: 0,
        },
        {
          message: { role: 'assistant', content: '' },
          done: false,
          index: 3,
          step: 0,
          tool_result: { tool_call_id: 'call_1', name: 'get_weather', outcome: 'ok', content: '{"sky":"clear"}' },
        },
        { message: { role: 'assistant', content: '晴' }, done: false, index: 4, step: 1 },
        { message: { role: 'assistant', content: '' }, done: true, index: 5, step: 1, finish_reason: 'stop', usage: usage(30, 6) },
      ]);
    });

    it('toToolLoopOutput and toToolLoopMessages: one value each; events without their finish are an error', async () => {
      const output = await lastValueFrom(loop().pipe(toToolLoopOutput()));
      expect(output).toMatchObject({ done: true, message: { role: 'assistant', content: '晴' }, finish_reason: 'stop', usage: usage(30, 6) });
      const messages = await lastValueFrom(loop().pipe(toToolLoopMessages()));
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      const cut = await lastValueFrom(of<ToolLoopEvent>({ type: 'step-start', step: 0 }).pipe(toToolLoopOutput())).catch((e: unknown) => e);
      expect(cut).toMatchObject({ name: 'StreamProtocolError', code: 'stream_incomplete' });
    });
  });
});
