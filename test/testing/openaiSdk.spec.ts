import OpenAI from 'openai';
import { last, lastValueFrom } from 'rxjs';
import { accumulateDeltas } from '../../src/operators/accumulateDeltas';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import type { ChatCompletion } from '../../src/core/schemas';
import { fromBody } from '../../src/source/fromBody';
import type { EmulatorDialect } from '../../src/testing/EmulatorDialect';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

/**
 * A client nobody here wrote (the official `openai` SDK) agrees with our emulator and with our parser: for every
 * dialect and every scenario that is not a fault, the SDK's accumulated answer equals chatflux's.
 */

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } },
  },
};
const time = {
  type: 'function' as const,
  function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
};

interface Case {
  name: string;
  dialect: EmulatorDialect;
  body: Record<string, unknown>;
  scenario?: string;
}

const ask = (content: string) => [{ role: 'user', content }];
const CASES: Case[] = [
  {
    name: 'deepseek chat',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('你好，介绍一下 RxJS 🚀') },
  },
  {
    name: 'deepseek chat with include_usage',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('hi'), stream_options: { include_usage: true } },
  },
  {
    name: 'deepseek reasoner',
    dialect: 'deepseek',
    body: { model: 'deepseek-reasoner', messages: ask('为什么天空是蓝色的？') },
  },
  {
    name: 'deepseek two tools',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('北京 get_weather get_time'), tools: [weather, time] },
  },
  {
    name: 'deepseek queued',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('排队') },
    scenario: 'queue=150;keep-alive=30',
  },
  {
    name: 'deepseek paced',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('慢慢来') },
    scenario: 'pace=2',
  },
  {
    name: 'deepseek split at random',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('切开 ✂️ 字符') },
    scenario: 'split=random',
  },
  {
    name: 'deepseek split every 5 bytes',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('三') },
    scenario: 'split=5;tokens=3',
  },
  {
    name: 'deepseek crlf',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('crlf') },
    scenario: 'crlf',
  },
  {
    name: 'deepseek no-space',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('no space') },
    scenario: 'no-space',
  },
  {
    name: 'deepseek bare line',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('bare') },
    scenario: 'bare-line-at=2',
  },
  {
    name: 'deepseek long answer',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('long') },
    scenario: 'tokens=3000',
  },
  {
    name: 'deepseek max_tokens',
    dialect: 'deepseek',
    body: { model: 'deepseek-chat', messages: ask('short'), max_tokens: 4 },
  },
  { name: 'moonshot v1', dialect: 'moonshot', body: { model: 'moonshot-v1-8k', messages: ask('你好，Kimi') } },
  {
    name: 'moonshot v1 n=2 with include_usage',
    dialect: 'moonshot',
    body: { model: 'moonshot-v1-8k', messages: ask('两个答案'), n: 2, stream_options: { include_usage: true } },
  },
  { name: 'moonshot kimi thinking', dialect: 'moonshot', body: { model: 'kimi-k2-thinking', messages: ask('想一想') } },
  {
    name: 'moonshot v1 tool call',
    dialect: 'moonshot',
    body: { model: 'moonshot-v1-8k', messages: ask('上海天气'), tools: [weather] },
  },
  {
    name: 'moonshot kimi two tools',
    dialect: 'moonshot',
    body: { model: 'kimi-k2-0905-preview', messages: ask('get_weather, get_time'), tools: [weather, time] },
  },
  {
    name: 'moonshot queued (silent)',
    dialect: 'moonshot',
    body: { model: 'moonshot-v1-8k', messages: ask('wait') },
    scenario: 'queue=100',
  },
  {
    name: 'openai with include_usage',
    dialect: 'openai',
    body: { model: 'gpt-4o-mini', messages: ask('hello'), stream_options: { include_usage: true } },
  },
  {
    name: 'openai tool call',
    dialect: 'openai',
    body: { model: 'gpt-4o-mini', messages: ask('weather'), tools: [weather], tool_choice: 'required' },
  },
];

interface Comparable {
  id: string;
  model: string;
  created: number;
  choices: Array<{
    index: number;
    finish_reason: string | null;
    message: {
      role: string;
      content: string | null;
      reasoning_content?: string | null;
      tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }> | null;
    };
  }>;
}

/** The fields both accumulators define the same way. */
const view = (completion: Comparable) => ({
  id: completion.id,
  model: completion.model,
  created: completion.created,
  choices: completion.choices.map((choice) => ({
    index: choice.index,
    finish_reason: choice.finish_reason,
    role: choice.message.role,
    content: choice.message.content,
    tool_calls: (choice.message.tool_calls ?? []).map((call) => ({
      id: call.id,
      type: call.type,
      function: { name: call.function.name, arguments: call.function.arguments },
    })),
  })),
});

describe('the openai SDK agrees with the emulator and with chatflux', () => {
  const emulators = new Map<EmulatorDialect, Emulator>();
  beforeAll(async () => {
    for (const dialect of ['deepseek', 'moonshot', 'openai'] as const)
      emulators.set(dialect, await startEmulator({ dialect, seed: 11, apiKey: 'sk-test' }));
  });
  afterAll(async () => {
    await Promise.all([...emulators.values()].map((e) => e.close()));
  });

  it.each(CASES)('$name', async ({ dialect, body, scenario }) => {
    const emulator = emulators.get(dialect)!;
    const headers: Record<string, string> = scenario ? { 'x-emulator-scenario': scenario } : {};
    const client = new OpenAI({ baseURL: emulator.url, apiKey: 'sk-test', maxRetries: 0 });

    const params = { ...body, stream: true } as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
    const sdk = (await client.chat.completions
      .stream(params, { headers })
      .finalChatCompletion()) as unknown as Comparable & {
      system_fingerprint?: string;
      usage?: unknown;
    };

    const res = await fetch(`${emulator.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', ...headers },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(res.status).toBe(200);
    const ours: ChatCompletion = await lastValueFrom(
      fromBody(res.body!).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last()),
    );

    expect(view(ours as Comparable)).toEqual(view(sdk));
    expect(ours.system_fingerprint).toBe(sdk.system_fingerprint);
    if (sdk.usage) expect(ours.usage).toEqual(sdk.usage);
    else if (dialect === 'moonshot')
      expect(ours.usage).toEqual(expect.objectContaining({ total_tokens: expect.any(Number) }));
    else expect(ours.usage ?? undefined).toBeUndefined();

    // and both equal the non-streaming answer to the same request (reasoning included: the SDK keeps only the
    // latest reasoning_content delta, chatflux concatenates them)
    const whole = (await client.chat.completions.create(
      { ...body, stream: false } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming,
      {
        headers,
      },
    )) as unknown as Comparable;
    expect(view(whole)).toEqual(view(ours as Comparable));
    ours.choices.forEach((choice, i) =>
      expect(choice.message.reasoning_content ?? undefined).toEqual(whole.choices[i]?.message.reasoning_content),
    );
  });

  it('create({ stream: true }) yields the emulator chunks verbatim', async () => {
    const emulator = emulators.get('moonshot')!;
    const client = new OpenAI({ baseURL: emulator.url, apiKey: 'sk-test', maxRetries: 0 });
    const body = {
      model: 'moonshot-v1-8k',
      messages: [{ role: 'user' as const, content: '逐块' }],
      stream_options: { include_usage: true },
    };
    const chunks: unknown[] = [];
    for await (const chunk of await client.chat.completions.create({ ...body, stream: true })) chunks.push(chunk);
    const res = await fetch(`${emulator.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    const text = await res.text();
    const expected = text
      .split('\n\n')
      .filter((b) => b.startsWith('data: {'))
      .map((b) => JSON.parse(b.slice(6)));
    expect(chunks).toEqual(expected);
  });

  it('the SDK sees the emulator errors as APIError with the status and the provider body', async () => {
    const client = new OpenAI({ baseURL: emulators.get('moonshot')!.url, apiKey: 'sk-test', maxRetries: 0 });
    const failing = client.chat.completions.create(
      { model: 'moonshot-v1-8k', messages: [{ role: 'user', content: 'x' }], stream: true },
      { headers: { 'x-emulator-scenario': 'status=429;retry-after=1' } },
    );
    await expect(failing).rejects.toMatchObject({ status: 429, error: { type: 'rate_limit_reached_error' } });
    const denied = new OpenAI({ baseURL: emulators.get('deepseek')!.url, apiKey: 'wrong', maxRetries: 0 });
    await expect(
      denied.chat.completions.create({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 401 });
  });
});
