/**
 * runTools over loopback, against the upstream emulator (which refuses what the providers refuse): a three-step
 * conversation in DeepSeek's thinking mode, invalid arguments corrected by the model, `maxSteps`, an unsubscribe during
 * a slow tool closing the upstream socket, parallel calls that reuse an `index`.
 */
import { lastValueFrom, toArray, type Subscription } from 'rxjs';
import { z } from 'zod';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import type { ChatMessage } from '../../src/core/schemas';
import { startEmulator, type Emulator, type EmulatorRequest } from '../../src/testing/startEmulator';
import { defineTool } from '../../src/tools/defineTool';
import { runTools } from '../../src/tools/runTools';
import type { ToolLoopEvent, ToolLoopFinishEvent, ToolLoopToolResultEvent } from '../../src/tools/ToolLoopEvent';
import { rawPost } from '../testing/helpers/rawPost';

const City = z.object({ city: z.string() });
const getWeather = defineTool({
  description: 'The weather of a city',
  schema: City,
  execute: ({ city }) => ({ city, sky: '晴', celsius: 21 }),
});
const getTime = defineTool({ description: 'The time in a city', schema: City, execute: ({ city }) => `12:00 in ${city}` });
const THINKING = { thinking: { type: 'enabled' } };
const MESSAGE_400 = 'The `reasoning_content` in the thinking mode must be passed back to the API.';

type Body = { messages: ChatMessage[] };
const resultsOf = (all: ToolLoopEvent[]) => all.filter((e): e is ToolLoopToolResultEvent => e.type === 'tool-result');
const finishOf = (all: ToolLoopEvent[]) => all.at(-1) as ToolLoopFinishEvent;

describe('runTools against the emulator', () => {
  let emulator: Emulator;
  let client: ChatClient;
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 5 });
    client = createChatClient({ provider: 'deepseek', baseUrl: emulator.url, apiKey: 'sk-test', retry: false });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  /** The emulator's records of the requests a run made (after `before`). */
  const madeSince = (before: number): EmulatorRequest[] => emulator.requests.filter((r) => r.seq > before);
  const lastSeq = (): number => emulator.requests.at(-1)?.seq ?? 0;

  it("a 3-step conversation in DeepSeek's thinking mode: each request carries the earlier turns' tool calls and reasoning_content", async () => {
    const before = lastSeq();
    const all = await lastValueFrom(
      runTools(
        client,
        { model: 'deepseek-chat#tool-steps=2', ...THINKING, messages: [{ role: 'user', content: 'Use get_weather for 杭州' }] },
        { tools: { get_weather: getWeather } },
      ).pipe(toArray()),
    );
    const made = madeSince(before);
    expect(made.map((r) => r.status)).toEqual([200, 200, 200]);
    const third = made[2]!.body as Body;
    expect(third.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    for (const turn of [third.messages[1]!, third.messages[3]!]) {
      expect(turn.reasoning_content).toEqual(expect.stringMatching(/.+/));
      expect(turn.tool_calls).toHaveLength(1);
    }
    // The ids go back verbatim, each answered by its tool message.
    expect(third.messages[2]!.tool_call_id).toBe(third.messages[1]!.tool_calls![0]!.id);
    expect(third.messages[4]!.tool_call_id).toBe(third.messages[3]!.tool_calls![0]!.id);
    expect(resultsOf(all).map((r) => [r.step, r.outcome])).toEqual([
      [0, 'ok'],
      [1, 'ok'],
    ]);
    const finish = finishOf(all);
    expect(finish).toMatchObject({ stopReason: 'answer', steps: 3, output: { finish_reason: 'stop' } });
    expect(finish.output.message.content).toMatch(/^关于「\{"city":/); // it answers the last tool result
    expect(finish.output.message.reasoning_content?.length).toBeGreaterThan(0);
    expect(finish.output.usage?.total_tokens).toBeGreaterThan(0);

    // The same third request without one turn's reasoning_content is what DeepSeek refuses.
    const stripped = third.messages.map((m, i) => (i === 3 ? { ...m, reasoning_content: undefined } : m));
    const refused = await rawPost(emulator.url, { ...(made[2]!.body as object), stream: true, messages: stripped });
    expect(refused.status).toBe(400);
    expect(refused.body.toString()).toContain(MESSAGE_400);
  });

  it('the emulator refuses unpaired tool turns with 400, as the providers do', async () => {
    const call = { id: 'call_00_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"杭州"}' } };
    const user = { role: 'user', content: 'Use get_weather' };
    const turn = { role: 'assistant', content: null, tool_calls: [call] };
    const cases: Array<[unknown[], string]> = [
      [[user, turn, { role: 'tool', content: '晴' }], 'missing field `tool_call_id`'],
      [[user, { role: 'tool', tool_call_id: 'call_00_x', content: '晴' }], "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"],
      [[user, turn, { role: 'tool', tool_call_id: 'call_99', content: '晴' }], "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"],
      [[user, turn, user], "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'"],
    ];
    for (const [messages, message] of cases) {
      const res = await rawPost(emulator.url, { model: 'deepseek-chat', stream: true, messages });
      expect({ status: res.status, message: (JSON.parse(res.body.toString()) as { error: { message: string } }).error.message }).toEqual({
        status: 400,
        message: expect.stringContaining(message),
      });
    }
    const paired = await rawPost(emulator.url, { model: 'deepseek-chat', stream: true, messages: [user, turn, { role: 'tool', tool_call_id: 'call_00_x', content: '晴' }] });
    expect(paired.status).toBe(200);
  });

  it('invalid arguments are told to the model, which corrects them in the next step', async () => {
    const before = lastSeq();
    const ran: unknown[] = [];
    const all = await lastValueFrom(
      runTools(
        client,
        { model: 'deepseek-chat#tool-steps=2;invalid-tool-args=1', messages: [{ role: 'user', content: 'Use get_weather for Paris' }] },
        { tools: { get_weather: defineTool({ schema: City, execute: (args) => (ran.push(args), 'sunny') }) } },
      ).pipe(toArray()),
    );
    const [invalid, valid] = resultsOf(all);
    expect(invalid).toMatchObject({ step: 0, outcome: 'invalid_arguments', call: { arguments: '{"city":42}' } });
    expect(valid).toMatchObject({ step: 1, outcome: 'ok', content: 'sunny' });
    expect(ran).toHaveLength(1);
    const second = madeSince(before)[1]!.body as Body;
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: invalid!.call.id, content: invalid!.content });
    expect(invalid!.content).toMatch(/fail its schema: city: .*Call "get_weather" again with arguments that match its parameters/);
    expect(finishOf(all)).toMatchObject({ stopReason: 'answer', steps: 3 });
  });

  it('maxSteps stops a model that keeps calling tools', async () => {
    const before = lastSeq();
    const all = await lastValueFrom(
      runTools(client, { model: 'deepseek-chat#tool-steps=5', messages: [{ role: 'user', content: 'Use get_weather' }] }, { tools: { get_weather: getWeather }, maxSteps: 2 }).pipe(
        toArray(),
      ),
    );
    expect(madeSince(before)).toHaveLength(2);
    expect(finishOf(all)).toMatchObject({ stopReason: 'max_steps', steps: 2, output: { finish_reason: 'tool_calls' } });
    // The conversation ends with the last step's tool results: sent again, it is a valid request.
    const again = await rawPost(emulator.url, { model: 'deepseek-chat', stream: true, messages: finishOf(all).messages });
    expect(again.status).toBe(200);
  });

  it('an unsubscribe during a slow tool aborts the tool and the upstream request still streaming', async () => {
    const before = lastSeq();
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    let toolSignal: AbortSignal | undefined;
    const slow = defineTool({
      schema: City,
      execute: (_args, { signal }) => {
        toolSignal = signal;
        started();
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted')));
      },
    });
    // Two calls, paced: the first (get_weather) runs while the model still streams the second.
    const subscription: Subscription = runTools(
      client,
      { model: 'deepseek-chat#pace=40', messages: [{ role: 'user', content: 'Use get_weather and get_time' }] },
      { tools: { get_weather: slow, get_time: getTime } },
    ).subscribe({ error: () => undefined });
    await toolStarted;
    const upstream = madeSince(before)[0]!;
    expect(upstream.completed).toBe(false); // still streaming the second call
    subscription.unsubscribe();
    expect(toolSignal?.aborted).toBe(true);
    await upstream.closed; // the socket closes: the emulator saw the client go away
    expect({ closedEarly: upstream.closedEarly, completed: upstream.completed }).toEqual({ closedEarly: true, completed: false });
    expect(madeSince(before)).toHaveLength(1); // and no further step was asked
  });

  it('parallel calls that reuse an index are kept apart by their ids, and the provider takes the history', async () => {
    const before = lastSeq();
    const all = await lastValueFrom(
      runTools(
        client,
        { model: 'deepseek-chat#reuse-tool-index', messages: [{ role: 'user', content: 'Use get_weather and get_time for Rome' }] },
        { tools: { get_weather: getWeather, get_time: getTime } },
      ).pipe(toArray()),
    );
    const made = madeSince(before);
    expect(made.map((r) => r.status)).toEqual([200, 200]);
    const deltas = all.filter((e) => e.type === 'tool-call-delta');
    expect(new Set(deltas.map((e) => (e as { index: number }).index))).toEqual(new Set([0])); // every fragment said index 0
    const turn = (made[1]!.body as Body).messages[1]!;
    const ids = turn.tool_calls!.map((c) => c.id);
    expect(turn.tool_calls!.map((c) => c.function.name)).toEqual(['get_weather', 'get_time']);
    expect(new Set(ids).size).toBe(2);
    for (const c of turn.tool_calls!) expect(JSON.parse(c.function.arguments)).toEqual({ city: expect.any(String) });
    expect(resultsOf(all).map((r) => [r.call.id, r.outcome])).toEqual(ids.map((id) => [id, 'ok']));
    expect(finishOf(all).stopReason).toBe('answer');
  });
});
