import Anthropic, { APIError, BadRequestError } from '@anthropic-ai/sdk';
import { fromAnthropicRequest, type LlmClientOutput } from 'chatflux';
import type { ChatRequestLog } from '../../src/express/chatRouter';
import type { Emulator } from '../../src/testing/startEmulator';
import { waitFor } from '../../test/helpers/streamSources';
import type { RunningGateway } from '../src/startGateway';
import { startRoutedGateway } from './startRoutedGateway';

/**
 * Anthropic's `POST /v1/messages` on the gateway, read by the official `@anthropic-ai/sdk` (`messages.create`,
 * `messages.stream()` + `finalMessage()`), in front of the emulator: the answers (text, thinking, tool use) and usage
 * of `/chat/json` for the same request, a DeepSeek thinking-mode tool round trip, failover and continuation on a route,
 * a cut upstream as an error (never `message_stop`), an abort that closes the upstream request, keys, refusals.
 */
describe('startGateway: Anthropic Messages (/v1/messages)', () => {
  let gateway: RunningGateway;
  let emulators: readonly Emulator[];
  let logs: ChatRequestLog[];
  let close: () => Promise<void>;
  const KEY = 'sk-gw-anthropic';
  beforeAll(async () => {
    // The routes and keys from the gateway's config file: `claude-sonnet-5` means "t0 (cut after 8 events), then t1";
    // `claude-cut` is t2 alone, cut after 40, without continuation; `claude-slow` is t3, slow (for the abort).
    ({ gateway, emulators, logs, close } = await startRoutedGateway(KEY, { routed: 'claude-sonnet-5', cut: 'claude-cut', slow: 'claude-slow' }));
  });
  afterAll(() => close());

  const sdk = (options: { apiKey?: string; authToken?: string } = { apiKey: KEY }) =>
    new Anthropic({ baseURL: gateway.url, maxRetries: 0, timeout: 10_000, ...options });
  /** The gateway's `/chat/json` answer to the same request (translated as `/v1/messages` translates it). */
  const chatJson = async (body: Record<string, unknown>): Promise<LlmClientOutput> => {
    const response = await fetch(`${gateway.url}/chat/json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
      body: JSON.stringify(fromAnthropicRequest(body)),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as LlmClientOutput;
  };

  it('answers messages.create and messages.stream() with /chat/json\'s text and usage, and logs them', async () => {
    const ask = { model: 'deepseek-chat', max_tokens: 1024, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'Hello, 你好' }] };
    const reference = await chatJson(ask);
    const created = await sdk().messages.create(ask);
    const stream = sdk().messages.stream(ask);
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    const streamed = await stream.finalMessage();
    for (const message of [created, streamed]) {
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: reference.message.content })]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.model).toBe('deepseek-chat');
      expect(message.usage).toEqual(
        expect.objectContaining({
          input_tokens: reference.usage!.prompt_tokens! - (reference.usage!.prompt_cache_hit_tokens ?? 0),
          cache_read_input_tokens: reference.usage!.prompt_cache_hit_tokens ?? 0,
          output_tokens: reference.usage!.completion_tokens,
        }),
      );
    }
    expect(texts.length).toBeGreaterThan(1); // streamed piece by piece
    expect(texts.join('')).toBe(reference.message.content);
    await waitFor(() => logs.filter((entry) => entry.endpoint === '/v1/messages').length === 2);
    const logged = logs.filter((entry) => entry.endpoint === '/v1/messages');
    expect(logged.map((entry) => [entry.status, entry.result, entry.model])).toEqual([
      [200, 'completed', 'deepseek-chat'],
      [200, 'completed', 'deepseek-chat'],
    ]);
    for (const entry of logged) expect(entry.usage).toEqual(expect.objectContaining({ prompt_tokens: reference.usage!.prompt_tokens, completion_tokens: reference.usage!.completion_tokens }));
  });

  it('gives the reasoning as a thinking block, streamed and not, and tool calls as tool_use blocks', async () => {
    const ask = {
      model: 'deepseek-chat',
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: [{ name: 'get_weather', description: 'The weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }],
      messages: [{ role: 'user' as const, content: 'get_weather for Paris, please' }],
    };
    const reference = await chatJson(ask);
    const call = reference.message.tool_calls![0]!;
    const created = await sdk().messages.create(ask);
    const streamed = await sdk().messages.stream(ask).finalMessage();
    for (const message of [created, streamed]) {
      expect(message.stop_reason).toBe('tool_use');
      const thinking = message.content.find((block) => block.type === 'thinking');
      expect(thinking).toEqual(expect.objectContaining({ thinking: reference.message.reasoning_content }));
      const toolUse = message.content.find((block) => block.type === 'tool_use');
      expect(toolUse).toEqual(expect.objectContaining({ id: call.id, name: 'get_weather', input: JSON.parse(call.function.arguments) }));
      expect(message.usage.output_tokens).toBe(reference.usage!.completion_tokens);
    }
    // The round trip DeepSeek's thinking mode requires: the assistant turn (its thinking included) and the result.
    const answered = await sdk().messages.stream({
      ...ask,
      messages: [
        ...ask.messages,
        { role: 'assistant' as const, content: streamed.content as Anthropic.ContentBlockParam[] },
        { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: call.id, content: '18°C, sunny' }] },
      ],
    }).finalMessage();
    expect(answered.stop_reason).toBe('end_turn');
    expect(answered.content.find((block) => block.type === 'text')).toEqual(expect.objectContaining({ text: expect.stringContaining('18°C, sunny') }));
    // Without the thinking block DeepSeek (the emulator) refuses the conversation: the SDK gets a 400 of it.
    const withoutThinking = {
      ...ask,
      messages: [
        ...ask.messages,
        { role: 'assistant' as const, content: streamed.content.filter((block) => block.type === 'tool_use') as Anthropic.ContentBlockParam[] },
        { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: call.id, content: '18°C, sunny' }] },
      ],
    };
    const refused = await sdk().messages.create(withoutThinking).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.APIError);
    expect((refused as APIError).message).toMatch(/reasoning_content/);
  });

  it('serves a model name by its route: a cut primary is continued by the fallback, streamed and not', async () => {
    const ask = { model: 'claude-sonnet-5', max_tokens: 1024, messages: [{ role: 'user' as const, content: '讲讲 failover' }] };
    const healthy = await chatJson({ ...ask, model: 'deepseek-chat' });
    const routed = { ...ask };
    const streamed = await sdk().messages.stream(routed).finalMessage();
    const created = await sdk().messages.create(routed);
    for (const message of [streamed, created]) {
      expect(message.model).toBe('claude-sonnet-5');
      expect(message.stop_reason).toBe('end_turn');
      expect(message.content).toEqual([expect.objectContaining({ type: 'text' })]);
    }
    // The route sends deepseek-chat to emulators of the same seed as the built-in one, which answered `healthy`.
    expect(streamed.content[0]).toEqual(expect.objectContaining({ text: healthy.message.content }));
    expect(created.content[0]).toEqual(expect.objectContaining({ text: healthy.message.content }));
    expect(emulators[0]!.requests.length).toBe(2); // cut both times
    expect(emulators[1]!.requests.length).toBe(2); // continued both times
  });

  it('a cut upstream reaches the SDK as an error, and the stream holds no message_stop', async () => {
    const ask = { model: 'claude-cut', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Tell me more' }] };
    const stream = sdk().messages.stream(ask);
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
    expect(texts.length).toBeGreaterThan(0); // the answer had begun
    const raw = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    expect(raw.status).toBe(200);
    const text = await raw.text();
    expect(text).toContain('event: content_block_delta\n');
    expect(text).not.toContain('message_stop');
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"[^"]+"\}\}\n\n$/);
    await expect(sdk().messages.create(ask)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
  });

  it('an abort by the SDK closes the upstream request', async () => {
    const controller = new AbortController();
    const stream = sdk().messages.stream({ model: 'claude-slow', max_tokens: 4096, messages: [{ role: 'user' as const, content: 'A long story' }] }, { signal: controller.signal });
    stream.on('text', () => controller.abort());
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    const upstream = await emulators[3]!.waitForRequest();
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
    expect(upstream.completed).toBe(false);
  });

  it('takes the key as x-api-key or Bearer, accepts anthropic-version and anthropic-beta, answers HEAD / and count_tokens', async () => {
    const ask = { model: 'deepseek-chat', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] };
    const viaBearer = await sdk({ authToken: KEY }).messages.create(ask, { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } });
    expect(viaBearer.type).toBe('message');
    await expect(sdk({ apiKey: 'sk-wrong' }).messages.create(ask)).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    const wrong = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'x-api-key': 'sk-wrong' }, body: JSON.stringify(ask) });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.any(String) } });
    expect((await fetch(`${gateway.url}/`, { method: 'HEAD' })).status).toBe(200);
    const counted = await sdk().messages.countTokens({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hello there, how are you today?' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('refuses what it cannot send to an OpenAI-compatible provider with a 400 naming it, in Anthropic\'s error shape', async () => {
    const ask = { model: 'deepseek-chat', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Search the web' }] };
    const refused = await sdk()
      .messages.create({ ...ask, tools: [{ type: 'web_search_20250305', name: 'web_search' }] } as never)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as BadRequestError).message).toMatch(/tools\.0\.type: the server tool \\"web_search_20250305\\" cannot be run/);
    const raw = await fetch(`${gateway.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ ...ask, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }] }], stream: true }),
    });
    expect(raw.status).toBe(400);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await raw.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('messages.0.content.0.type') } });
  });
});
