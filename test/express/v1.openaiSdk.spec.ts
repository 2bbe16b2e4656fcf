import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { GATEWAY_KEY, OPENAI_CASES, WEATHER_TOOL, type Reference } from '../helpers/openAiGateway';
import { useOpenAiGateway } from '../helpers/useOpenAiGateway';

/**
 * The official `openai` SDK against `POST /v1/chat/completions` in front of each emulator dialect: raw stream
 * iteration, the `ChatCompletionStream` helpers and non-streaming all give what `/chat/json` gives — Moonshot's tool
 * calls without `index`, its usage inside the choice and DeepSeek's reasoning included.
 */

type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };

const collect = (chunks: ChatCompletionChunk[]): Reference => {
  let content = '';
  let reasoning: string | undefined;
  let refusal: string | undefined;
  let finishReason: string | undefined;
  let usage: Reference['usage'];
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const chunk of chunks) {
    if (chunk.usage) usage = { prompt_tokens: chunk.usage.prompt_tokens, completion_tokens: chunk.usage.completion_tokens, total_tokens: chunk.usage.total_tokens };
    for (const choice of chunk.choices) {
      const delta = choice.delta as Delta;
      content += delta.content ?? '';
      if (delta.reasoning_content) reasoning = (reasoning ?? '') + delta.reasoning_content;
      if (delta.refusal) refusal = (refusal ?? '') + delta.refusal;
      for (const call of delta.tool_calls ?? []) {
        expect(typeof call.index).toBe('number');
        const known = calls[call.index];
        if (known === undefined) {
          expect(call.id).toEqual(expect.any(String));
          expect(call.type).toBe('function');
          calls[call.index] = { id: call.id ?? '', name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' };
        } else known.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  return { content, reasoning, refusal, toolCalls: calls, finishReason, usage };
};

describe('POST /v1/chat/completions with the openai SDK', () => {
  describe.each(OPENAI_CASES)('$name', ({ dialect, model, tools, prompt }) => {
    const gateway = useOpenAiGateway(dialect, model);
    let openai: OpenAI;
    const body = { model, messages: [{ role: 'user' as const, content: prompt }], ...(tools ? { tools: [WEATHER_TOOL] } : {}) };
    let reference: Reference;

    beforeAll(async () => {
      openai = new OpenAI({ baseURL: gateway.baseURL, apiKey: GATEWAY_KEY, maxRetries: 0, timeout: 5000 });
      reference = await gateway.reference(body);
    });

    it('raw stream iteration gives /chat/json’s answer, the usage chunk last, then [DONE]', async () => {
      const stream = await openai.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } });
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(collect(chunks)).toEqual(reference);
      expect(chunks.at(-1)).toMatchObject({ object: 'chat.completion.chunk', choices: [], usage: reference.usage });
      expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    });

    it('leaves usage out unless stream_options.include_usage asks for it', async () => {
      const stream = await openai.chat.completions.create({ ...body, stream: true });
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(collect(chunks)).toEqual({ ...reference, usage: undefined });
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe(reference.finishReason);
    });

    it('the stream helpers: finalChatCompletion() holds the text, tool calls, refusal and usage', async () => {
      const runner = openai.chat.completions.stream({ ...body, stream_options: { include_usage: true } });
      const chunks: ChatCompletionChunk[] = [];
      runner.on('chunk', (chunk) => chunks.push(chunk));
      const final = await runner.finalChatCompletion();
      const message = final.choices[0]!.message;
      expect(message.content ?? '').toBe(reference.content);
      expect(message.refusal ?? undefined).toBe(reference.refusal);
      expect((message.tool_calls ?? []).map((call) => call.type === 'function' && { id: call.id, name: call.function.name, arguments: call.function.arguments })).toEqual(reference.toolCalls);
      expect(final.choices[0]!.finish_reason).toBe(reference.finishReason);
      expect(final.usage).toMatchObject(reference.usage ?? {});
      // The helper keeps only the last `reasoning_content` piece in its snapshot (Object.assign): its chunks hold it all.
      expect(collect(chunks).reasoning).toBe(reference.reasoning);
    });

    it('non-streaming: one chat.completion with the assembled message and usage', async () => {
      const completion = await openai.chat.completions.create(body);
      expect(completion.object).toBe('chat.completion');
      const message = completion.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
      expect(message.content ?? '').toBe(reference.content);
      expect(message.reasoning_content).toBe(reference.reasoning);
      expect(message.refusal ?? undefined).toBe(reference.refusal);
      expect((message.tool_calls ?? []).map((call) => call.type === 'function' && { id: call.id, name: call.function.name, arguments: call.function.arguments })).toEqual(reference.toolCalls);
      expect(completion.usage).toMatchObject(reference.usage ?? {});
    });
  });

  describe('faults', () => {
    const gateway = useOpenAiGateway('deepseek', 'deepseek-chat');
    let openai: OpenAI;
    beforeAll(async () => {
      openai = new OpenAI({ baseURL: gateway.baseURL, apiKey: GATEWAY_KEY, maxRetries: 0, timeout: 5000 });
    });
    const ask = { model: 'deepseek-chat', messages: [{ role: 'user' as const, content: 'tell me a story' }] };

    it.each(['eof-after=3', 'pace=10;reset-after=3', 'error-payload-at=3', 'no-done;eof-after=3'])('a cut upstream (%s) reaches raw iteration as an error', async (scenario) => {
      gateway.emulator.setScenario(scenario);
      const stream = await openai.chat.completions.create({ ...ask, stream: true });
      const seen: ChatCompletionChunk[] = [];
      await expect(
        (async () => {
          for await (const chunk of stream) seen.push(chunk);
        })(),
      ).rejects.toBeInstanceOf(OpenAI.APIError);
      expect(seen.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
    });

    it('a cut upstream reaches the helpers and the non-streaming call as an error', async () => {
      gateway.emulator.setScenario('eof-after=3');
      await expect(openai.chat.completions.stream(ask).finalChatCompletion()).rejects.toThrow();
      await expect(openai.chat.completions.create(ask)).rejects.toMatchObject({ status: 502 });
    });

    it('errors before the first byte: OpenAI’s error body with the right status', async () => {
      const wrongKey = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'sk-wrong', maxRetries: 0 });
      await expect(wrongKey.chat.completions.create(ask)).rejects.toMatchObject({ status: 401, type: 'authentication_error', param: null });
      await expect(openai.chat.completions.create({ ...ask, messages: [] })).rejects.toMatchObject({ status: 400, type: 'invalid_request_error', code: 'invalid_request' });
      await expect(openai.chat.completions.create({ ...ask, n: 2 })).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
      gateway.emulator.setScenario('status=429;retry-after=1');
      await expect(openai.chat.completions.create({ ...ask, stream: true })).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    });

    it('an abort in the client closes the upstream request', async () => {
      gateway.emulator.setScenario('pace=20');
      const controller = new AbortController();
      const stream = await openai.chat.completions.create({ ...ask, messages: [{ role: 'user', content: 'abort me' }], stream: true }, { signal: controller.signal });
      const upstream = await gateway.emulator.waitForRequest((request) => String(JSON.stringify(request.body)).includes('abort me'));
      let pieces = 0;
      // The SDK ends its iteration quietly on an abort (or throws an APIUserAbortError): either way the upstream closes.
      await (async () => {
        for await (const chunk of stream) if (chunk.choices[0]?.delta.content && ++pieces === 1) controller.abort();
      })().catch((error: unknown) => expect(error).toBeInstanceOf(OpenAI.APIUserAbortError));
      expect(pieces).toBe(1);
      await upstream.closed;
      expect(upstream.closedEarly).toBe(true);
    });

    it('GET /v1/models lists the configured models', async () => {
      const page = await openai.models.list();
      expect(page.data.map((model) => model.id)).toContain('deepseek-chat');
    });
  });
});
