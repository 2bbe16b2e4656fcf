import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { dataOf, rawPost } from './helpers/rawPost';

interface ToolFragment {
  index?: number;
  id?: string;
  type?: string;
  function: { name?: string; arguments: string };
}
type Json = Record<string, unknown> & { choices: Array<Record<string, unknown> & { delta: Record<string, unknown> }> };

const user = (content: string) => [{ role: 'user', content }];
const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { type: 'string', enum: ['c', 'f'] } },
    },
  },
};
const time = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
};

describe('startEmulator dialects', () => {
  let emulator: Emulator;
  afterEach(async () => {
    await emulator.close();
  });

  const stream = async (body: Record<string, unknown>): Promise<{ text: string; chunks: Json[]; raw: string[] }> => {
    const res = await rawPost(emulator.url, { stream: true, ...body });
    expect(res.status).toBe(200);
    const text = res.body.toString('utf8');
    const raw = dataOf(text);
    expect(raw[raw.length - 1]).toBe('[DONE]');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    return { text, raw, chunks: raw.slice(0, -1).map((line) => JSON.parse(line) as Json) };
  };

  describe('deepseek', () => {
    beforeEach(async () => {
      emulator = await startEmulator({ dialect: 'deepseek', seed: 7 });
    });

    it('writes chunks with DeepSeek key order, explicit nulls and usage on the finishing chunk', async () => {
      const { text, chunks, raw } = await stream({ model: 'deepseek-chat', messages: user('你好') });
      expect(text).not.toMatch(/\r|^:/m);
      expect(raw[0]).toMatch(
        /^\{"id":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}","object":"chat.completion.chunk","created":\d+,"model":"deepseek-chat","system_fingerprint":"fp_[0-9a-f]{10}_prod0820","choices":\[\{"index":0,"delta":\{"role":"assistant","content":""\},"logprobs":null,"finish_reason":null\}\]\}$/,
      );
      for (const chunk of chunks.slice(1, -1)) {
        expect(Object.keys(chunk)).toEqual(['id', 'object', 'created', 'model', 'system_fingerprint', 'choices']);
        expect(Object.keys(chunk.choices[0]!)).toEqual(['index', 'delta', 'logprobs', 'finish_reason']);
        expect(Object.keys(chunk.choices[0]!.delta)).toEqual(['content']);
      }
      const last = chunks[chunks.length - 1]!;
      expect(last.choices[0]).toEqual({ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'stop' });
      expect(Object.keys(last.usage as object)).toEqual([
        'prompt_tokens',
        'completion_tokens',
        'total_tokens',
        'prompt_tokens_details',
        'prompt_cache_hit_tokens',
        'prompt_cache_miss_tokens',
      ]);
      expect((last.usage as { completion_tokens: number }).completion_tokens).toBe(chunks.length - 2);
      expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
      const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      expect(content.startsWith('关于「你好」，')).toBe(true);
    });

    it('writes "usage":null on every other chunk with include_usage, and no choices:[] chunk', async () => {
      const { chunks } = await stream({
        model: 'deepseek-chat',
        messages: user('hi'),
        stream_options: { include_usage: true },
      });
      for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
      expect(chunks[chunks.length - 1]!.usage).toEqual(expect.objectContaining({ total_tokens: expect.any(Number) }));
      expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    });

    it('streams reasoning_content first for deepseek-reasoner, with content:null while thinking', async () => {
      const { chunks } = await stream({ model: 'deepseek-reasoner', messages: user('why?') });
      expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: null, reasoning_content: '' });
      const deltas = chunks.slice(1, -1).map((c) => c.choices[0]!.delta);
      const firstContent = deltas.findIndex((d) => typeof d.content === 'string');
      expect(firstContent).toBeGreaterThan(0);
      for (const d of deltas.slice(0, firstContent))
        expect(d).toEqual({ content: null, reasoning_content: expect.any(String) });
      for (const d of deltas.slice(firstContent))
        expect(d).toEqual({ content: expect.any(String), reasoning_content: null });
      const usage = chunks[chunks.length - 1]!.usage as { completion_tokens_details: { reasoning_tokens: number } };
      expect(usage.completion_tokens_details.reasoning_tokens).toBe(firstContent);
    });

    it('calls a tool with arguments in fine pieces that join into valid JSON built from the request', async () => {
      const { chunks } = await stream({ model: 'deepseek-chat', messages: user('北京的天气'), tools: [weather] });
      const calls = chunks.flatMap((c) => (c.choices[0]!.delta.tool_calls as ToolFragment[] | undefined) ?? []);
      expect(calls[0]).toEqual({
        index: 0,
        id: expect.stringMatching(/^call_00_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      });
      const pieces = calls.slice(1).map((c) => c.function.arguments as string);
      expect(pieces.length).toBeGreaterThan(3);
      for (const piece of pieces) expect(Array.from(piece).length).toBeLessThanOrEqual(4);
      for (const call of calls.slice(1)) expect(Object.keys(call)).toEqual(['index', 'function']);
      expect(JSON.parse(pieces.join(''))).toEqual({ city: '北京的天气', days: expect.any(Number), unit: 'c' });
      expect(chunks[chunks.length - 1]!.choices[0]!.finish_reason).toBe('tool_calls');
    });

    it('calls several tools one after another when the message names them, and answers in text after a tool result', async () => {
      const { chunks } = await stream({
        model: 'deepseek-chat',
        messages: user('get_weather and get_time please'),
        tools: [weather, time],
      });
      const calls = chunks.flatMap((c) => (c.choices[0]!.delta.tool_calls as ToolFragment[] | undefined) ?? []);
      const indexes = calls.map((c) => c.index as number);
      expect(indexes).toEqual([...indexes].sort());
      expect(calls.filter((c) => c.id).map((c) => c.function.name)).toEqual(['get_weather', 'get_time']);
      const after = await stream({
        model: 'deepseek-chat',
        tools: [weather],
        messages: [
          ...user('北京'),
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '晴，25°C' },
        ],
      });
      expect(after.chunks.map((c) => c.choices[0]!.delta.content ?? '').join('')).toMatch(/^关于「晴，25°C」/);
      expect(after.chunks[after.chunks.length - 1]!.choices[0]!.finish_reason).toBe('stop');
    });

    it('ignores n (one choice) and cuts at max_tokens with finish_reason length', async () => {
      const { chunks } = await stream({ model: 'deepseek-chat', messages: user('hi'), n: 3, max_tokens: 3 });
      expect(chunks.every((c) => c.choices[0]!.index === 0)).toBe(true);
      expect(chunks.length).toBe(5);
      expect(chunks[4]!.choices[0]!.finish_reason).toBe('length');
    });

    it('answers stream:false with one chat.completion equal to the streamed answer', async () => {
      const body = { model: 'deepseek-reasoner', messages: user('讲个笑话 😀') };
      const { chunks } = await stream(body);
      const res = await rawPost(emulator.url, body);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const completion = JSON.parse(res.body.toString('utf8'));
      expect(Object.keys(completion)).toEqual([
        'id',
        'object',
        'created',
        'model',
        'choices',
        'usage',
        'system_fingerprint',
      ]);
      expect(completion.id).toBe(chunks[0]!.id);
      expect(completion.object).toBe('chat.completion');
      expect(completion.choices[0]).toEqual({
        index: 0,
        message: {
          role: 'assistant',
          content: chunks.map((c) => c.choices[0]!.delta.content ?? '').join(''),
          reasoning_content: chunks.map((c) => c.choices[0]!.delta.reasoning_content ?? '').join(''),
        },
        logprobs: null,
        finish_reason: 'stop',
      });
      expect(completion.usage).toEqual(chunks[chunks.length - 1]!.usage);
    });
  });

  describe('moonshot', () => {
    beforeEach(async () => {
      emulator = await startEmulator({ dialect: 'moonshot', seed: 7 });
    });

    it('omits absent fields, puts system_fingerprint last, and usage inside the finishing choice', async () => {
      const { chunks, raw, text } = await stream({ model: 'moonshot-v1-8k', messages: user('你好') });
      expect(text.startsWith('data: {')).toBe(true);
      expect(raw[0]).toMatch(
        /^\{"id":"chatcmpl-[0-9a-f]{24}","object":"chat.completion.chunk","created":\d+,"model":"moonshot-v1-8k","choices":\[\{"index":0,"delta":\{"role":"assistant","content":""\},"finish_reason":null\}\],"system_fingerprint":"fpv0_[0-9a-f]{8}"\}$/,
      );
      for (const chunk of chunks)
        expect(Object.keys(chunk)).toEqual(['id', 'object', 'created', 'model', 'choices', 'system_fingerprint']);
      const last = chunks[chunks.length - 1]!;
      expect(last.choices[0]).toEqual({
        index: 0,
        delta: {},
        finish_reason: 'stop',
        usage: {
          prompt_tokens: expect.any(Number),
          completion_tokens: chunks.length - 2,
          total_tokens: expect.any(Number),
        },
      });
    });

    it('sends one more choices:[] chunk with the same usage at top level when include_usage', async () => {
      const { chunks } = await stream({
        model: 'moonshot-v1-8k',
        messages: user('hi'),
        stream_options: { include_usage: true },
      });
      const usageChunk = chunks[chunks.length - 1]!;
      expect(Object.keys(usageChunk)).toEqual([
        'id',
        'object',
        'created',
        'model',
        'choices',
        'system_fingerprint',
        'usage',
      ]);
      expect(usageChunk.choices).toEqual([]);
      expect(usageChunk.usage).toEqual(chunks[chunks.length - 2]!.choices[0]!.usage);
      expect(chunks.slice(0, -1).every((c) => !('usage' in c))).toBe(true);
    });

    it('streams reasoning_content first for kimi-k2-thinking', async () => {
      const { chunks } = await stream({ model: 'kimi-k2-thinking', messages: user('why?') });
      expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '', reasoning_content: '' });
      const kinds = chunks.slice(1, -1).map((c) => Object.keys(c.choices[0]!.delta).join());
      expect(kinds.indexOf('content')).toBeGreaterThan(kinds.lastIndexOf('reasoning_content'));
    });

    it('interleaves n > 1 choices, each with its own finishing chunk and usage', async () => {
      const { chunks } = await stream({ model: 'moonshot-v1-8k', messages: user('hi'), n: 2 });
      expect(chunks[0]!.choices[0]!.index).toBe(0);
      expect(chunks[1]!.choices[0]!.index).toBe(1);
      expect(chunks[2]!.choices[0]!.index).toBe(0);
      const finishing = chunks.filter((c) => c.choices[0]!.finish_reason === 'stop');
      expect(finishing.map((c) => c.choices[0]!.index).sort()).toEqual([0, 1]);
      for (const c of finishing)
        expect(c.choices[0]!.usage).toEqual(expect.objectContaining({ total_tokens: expect.any(Number) }));
      const text = (i: number) =>
        chunks
          .filter((c) => c.choices[0]!.index === i)
          .map((c) => c.choices[0]!.delta.content ?? '')
          .join('');
      expect(text(0)).not.toBe(text(1));
    });

    it('streams moonshot-v1 tool arguments as pretty-printed pieces with ids like get_weather:0', async () => {
      const { chunks } = await stream({ model: 'moonshot-v1-8k', messages: user('上海'), tools: [weather] });
      const calls = chunks.flatMap((c) => (c.choices[0]!.delta.tool_calls as ToolFragment[] | undefined) ?? []);
      expect(calls[0]).toEqual({
        index: 0,
        id: 'get_weather:0',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      });
      const args = calls.slice(1).map((c) => c.function.arguments as string);
      expect(args.join('')).toBe(JSON.stringify(JSON.parse(args.join('')), null, 2));
      expect(args.length).toBeGreaterThan(2);
      expect(JSON.parse(args.join('')).city).toBe('上海');
    });

    it('omits the index of later fragments with no-tool-index', async () => {
      const res = await rawPost(
        emulator.url,
        { model: 'moonshot-v1-8k', stream: true, messages: user('上海'), tools: [weather] },
        { headers: { 'x-emulator-scenario': 'no-tool-index' } },
      );
      const calls = dataOf(res.body.toString())
        .slice(0, -1)
        .flatMap((line) => (JSON.parse(line).choices[0].delta.tool_calls as Array<Record<string, unknown>>) ?? []);
      expect(calls[0]).toHaveProperty('index', 0);
      for (const call of calls.slice(1)) expect(call).not.toHaveProperty('index');
    });

    it('sends newer Kimi tool arguments whole, with ids like functions.get_weather:0', async () => {
      const { chunks } = await stream({
        model: 'kimi-k2-0905-preview',
        messages: user('上海'),
        tools: [weather],
        tool_choice: 'required',
      });
      const calls = chunks.flatMap((c) => (c.choices[0]!.delta.tool_calls as ToolFragment[] | undefined) ?? []);
      expect(calls).toHaveLength(2);
      expect(calls[0]!.id).toBe('functions.get_weather:0');
      expect(JSON.parse(calls[1]!.function.arguments)).toEqual({ city: '上海', days: expect.any(Number), unit: 'c' });
    });

    it('does not call tools with tool_choice none', async () => {
      const { chunks } = await stream({
        model: 'kimi-k2-0905-preview',
        messages: user('get_weather'),
        tools: [weather],
        tool_choice: 'none',
      });
      expect(chunks.some((c) => c.choices[0]!.delta.tool_calls)).toBe(false);
    });
  });

  describe('openai', () => {
    beforeEach(async () => {
      emulator = await startEmulator({ dialect: 'openai', seed: 7 });
    });

    it('sends usage only in a final choices:[] chunk, with usage:null before it when include_usage', async () => {
      const { chunks } = await stream({
        model: 'gpt-4o-mini',
        messages: user('hi'),
        stream_options: { include_usage: true },
      });
      const last = chunks[chunks.length - 1]!;
      expect(last.choices).toEqual([]);
      expect(last.usage).toEqual(expect.objectContaining({ total_tokens: expect.any(Number) }));
      for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
      expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    });
  });
});
