/**
 * The emulator speaks other hosts' shapes (scenario items), and the client reads each of them whole: Azure's filter
 * chunk, `delta.reasoning`, Mistral's content parts, `x_groq.usage`, a refusal, a provider without `[DONE]` — so the
 * project's own tests cover every quirk without the shared corpus. The same request with and without a quirk must
 * give the same answer through the client.
 */
import { lastValueFrom, toArray } from 'rxjs';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../../src/client/createChatClient';
import type { LlmClientOutput } from '../../src/core/schemas';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { dataOf, rawPost } from './helpers/rawPost';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const body = (model: string) => ({ model, stream: true, messages: [{ role: 'user' as const, content: '你好，quirks' }] });

describe('emulator provider quirks', () => {
  let emulator: Emulator;
  const clients: ChatClient[] = [];
  const client = (scenario: string, config: Partial<ChatClientConfig> = {}): ChatClient => {
    const made = createChatClient({
      baseUrl: emulator.url,
      headers: { 'x-emulator-scenario': scenario },
      retry: false,
      ...config,
    });
    clients.push(made);
    return made;
  };
  const json = (model: string, scenario: string, config: Partial<ChatClientConfig> = {}): Promise<LlmClientOutput> =>
    lastValueFrom(client(scenario, config).json({ model, messages: body(model).messages }));
  const events = async (model: string, scenario: string): Promise<{ text: string; chunks: Json[] }> => {
    const res = await rawPost(emulator.url, body(model), { headers: { 'x-emulator-scenario': scenario } });
    expect(res.status).toBe(200);
    const text = res.body.toString('utf8');
    return {
      text,
      chunks: dataOf(text)
        .filter((d) => d !== '[DONE]')
        .map((d) => JSON.parse(d) as Json),
    };
  };

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await emulator.close();
  });

  describe('openai dialect', () => {
    beforeEach(async () => {
      emulator = await startEmulator({ dialect: 'openai', seed: 3 });
    });

    it("azure-filter: opens with Azure's empty prompt_filter_results chunk; the answer keeps the first real id/model/created", async () => {
      const { chunks } = await events('gpt-4o', 'azure-filter');
      expect(chunks[0]).toMatchObject({ choices: [], id: '', model: '', created: 0, object: '' });
      expect(chunks[0]!.prompt_filter_results).toHaveLength(1);
      expect(chunks[1]!.choices[0].content_filter_results).toBeDefined();
      const plain = await json('gpt-4o', '');
      const azure = await json('gpt-4o', 'azure-filter');
      expect(azure).toEqual(plain);
      expect(azure.id).toMatch(/^chatcmpl-/);
      expect(azure.model).toBe('gpt-4o');
      expect(azure.created).toBeGreaterThan(0);
    });

    it('reasoning-field=reasoning: reasoning arrives as delta.reasoning and comes out whole as reasoning_content', async () => {
      const { chunks } = await events('o-thinking', 'reasoning-field=reasoning');
      const pieces = chunks.map((c) => c.choices[0]?.delta?.reasoning).filter((r) => typeof r === 'string' && r !== '');
      expect(pieces.length).toBeGreaterThan(5);
      expect(chunks.some((c) => c.choices[0]?.delta?.reasoning_content !== undefined)).toBe(false);
      const plain = await json('o-thinking', '');
      const quirk = await json('o-thinking', 'reasoning-field=reasoning');
      expect(quirk.message.reasoning_content).toBe(pieces.join(''));
      expect(quirk).toEqual(plain);
    });

    it('usage-in=x_groq: the usage only in x_groq.usage of the finishing chunk, and still in every output', async () => {
      const { chunks } = await events('llama', 'usage-in=x_groq');
      expect(chunks.some((c) => c.usage != null)).toBe(false);
      const last = chunks.at(-1)!;
      expect(last.choices[0].finish_reason).toBe('stop');
      expect(last.x_groq.usage.total_tokens).toBeGreaterThan(0);
      const output = await json('llama', 'usage-in=x_groq');
      expect(output.usage).toEqual(last.x_groq.usage);
      const streamed = await lastValueFrom(
        client('usage-in=x_groq')
          .stream({ model: 'llama', messages: body('llama').messages })
          .pipe(toArray()),
      );
      expect(streamed.at(-1)?.usage).toEqual(last.x_groq.usage);
    });

    it('refusal: delta.refusal pieces with content null; the answer carries message.refusal, never an empty success', async () => {
      const { chunks } = await events('gpt-4o', 'refusal');
      expect(chunks[0]!.choices[0].delta).toEqual({ role: 'assistant', content: null, refusal: '' });
      const output = await json('gpt-4o', 'refusal');
      expect(output.message).toEqual({
        role: 'assistant',
        content: '',
        refusal: "I'm sorry, but I can't help with that.",
      });
      expect(output.finish_reason).toBe('stop');
      const streamed = await lastValueFrom(
        client('refusal')
          .stream({ model: 'gpt-4o', messages: body('gpt-4o').messages })
          .pipe(toArray()),
      );
      expect(streamed.map((c) => c.message.refusal ?? '').join('')).toBe(output.message.refusal);
      const whole = await rawPost(
        emulator.url,
        { ...body('gpt-4o'), stream: false },
        { headers: { 'x-emulator-scenario': 'refusal' } },
      );
      expect(JSON.parse(whole.body.toString()).choices[0].message).toEqual({
        role: 'assistant',
        content: null,
        refusal: output.message.refusal,
      });
    });

    it('no-done: the body ends after the usage chunk without [DONE], and the answer is complete', async () => {
      const { text } = await events('gpt-4o', 'no-done');
      expect(text).not.toContain('[DONE]');
      const output = await json('gpt-4o', 'no-done');
      expect(output).toEqual(await json('gpt-4o', ''));
      expect(output.usage?.total_tokens).toBeGreaterThan(0);
    });

    it('no-done with requireDone: true is stream_incomplete', async () => {
      await expect(json('gpt-4o', 'no-done', { requireDone: true })).rejects.toMatchObject({
        code: 'stream_incomplete',
      });
    });

    it('an EOF after the finish_reason but before the usage chunk: complete, with usage_missing: true', async () => {
      const res = await rawPost(emulator.url, { ...body('gpt-4o'), stream_options: { include_usage: true } });
      const chunks = dataOf(res.body.toString()).filter((d) => d !== '[DONE]');
      expect(JSON.parse(chunks.at(-1)!)).toMatchObject({ choices: [], usage: {} }); // as the client asks for it
      const cut = `eof-after=${chunks.length - 1}`; // everything but the final choices: [] usage chunk
      const output = await json('gpt-4o', cut);
      expect(output.finish_reason).toBe('stop');
      expect(output.usage).toBeUndefined();
      expect(output.usage_missing).toBe(true);
      const streamed = await lastValueFrom(
        client(cut)
          .stream({ model: 'gpt-4o', messages: body('gpt-4o').messages })
          .pipe(toArray()),
      );
      expect(streamed.at(-1)).toMatchObject({ done: true, finish_reason: 'stop', usage_missing: true });
    });
  });

  describe('moonshot dialect (no role-only opening chunk, usage inside the choice)', () => {
    beforeEach(async () => {
      emulator = await startEmulator({ dialect: 'moonshot', seed: 3 });
    });

    it('content-parts: Mistral thinking and text parts; reasoning and text come out as from plain strings', async () => {
      const { chunks } = await events('kimi-k2-thinking', 'content-parts');
      const contents = chunks.map((c) => c.choices[0]?.delta?.content).filter((c) => c !== undefined);
      expect(contents.every((c) => Array.isArray(c) || c === '')).toBe(true);
      expect(contents[0][0]).toMatchObject({ type: 'thinking', thinking: [{ type: 'text' }] });
      expect(contents.some((c) => Array.isArray(c) && c[0]?.type === 'text')).toBe(true);
      const plain = await json('kimi-k2-thinking', '');
      const parts = await json('kimi-k2-thinking', 'content-parts');
      expect(parts.message.reasoning_content?.length).toBeGreaterThan(0);
      expect(parts).toEqual(plain);
    });
  });
});
