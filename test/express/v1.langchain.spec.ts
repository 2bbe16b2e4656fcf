import { ChatOpenAI } from '@langchain/openai';
import type { AIMessageChunk } from '@langchain/core/messages';
import { GATEWAY_KEY, OPENAI_CASES, WEATHER_TOOL, type OpenAiGateway, type Reference } from '../helpers/openAiGateway';
import { useOpenAiGateway } from '../helpers/useOpenAiGateway';

/**
 * LangChain's `ChatOpenAI` (`@langchain/openai`) against `POST /v1/chat/completions` in front of each emulator
 * dialect: streamed and invoked answers equal `/chat/json`'s — text, reasoning (`additional_kwargs.reasoning_content`),
 * tool calls (Moonshot's without `index` too: valid, not `invalid_tool_calls`) and usage.
 */

const modelFor = (gateway: OpenAiGateway, model: string, extra: Record<string, unknown> = {}): ChatOpenAI =>
  new ChatOpenAI({ model, apiKey: GATEWAY_KEY, configuration: { baseURL: gateway.baseURL }, maxRetries: 0, timeout: 5000, ...extra });

const summary = (message: AIMessageChunk): Omit<Reference, 'finishReason' | 'refusal'> => ({
  content: typeof message.content === 'string' ? message.content : '',
  reasoning: message.additional_kwargs['reasoning_content'] as string | undefined,
  toolCalls: (message.tool_calls ?? []).map((call) => ({ id: call.id ?? '', name: call.name, arguments: JSON.stringify(call.args) })),
  usage: message.usage_metadata && { prompt_tokens: message.usage_metadata.input_tokens, completion_tokens: message.usage_metadata.output_tokens, total_tokens: message.usage_metadata.total_tokens },
});
const expected = (reference: Reference): Omit<Reference, 'finishReason' | 'refusal'> => ({
  content: reference.content,
  reasoning: reference.reasoning,
  // LangChain parses the arguments: compare them parsed.
  toolCalls: reference.toolCalls.map((call) => ({ ...call, arguments: JSON.stringify(JSON.parse(call.arguments)) })),
  usage: reference.usage,
});

describe('POST /v1/chat/completions with LangChain ChatOpenAI', () => {
  describe.each(OPENAI_CASES.filter((c) => !c.model.includes('#refusal')))('$name', ({ dialect, model, tools, prompt }) => {
    const gateway = useOpenAiGateway(dialect, model);
    let reference: Reference;
    const messages = [{ role: 'user', content: prompt }];

    beforeAll(async () => {
      reference = await gateway.reference({ model, messages, ...(tools ? { tools: [WEATHER_TOOL] } : {}) });
    });

    const chat = (): ReturnType<ChatOpenAI['bindTools']> | ChatOpenAI => {
      const base = modelFor(gateway, model);
      return tools ? base.bindTools([WEATHER_TOOL]) : base;
    };

    it('stream(): the concatenated chunks equal /chat/json’s answer', async () => {
      let whole: AIMessageChunk | undefined;
      for await (const chunk of await chat().stream(messages)) whole = whole === undefined ? chunk : whole.concat(chunk);
      expect(whole).toBeDefined();
      expect(whole!.invalid_tool_calls ?? []).toEqual([]);
      expect(summary(whole!)).toEqual(expected(reference));
    });

    it('invoke(): the answer equals /chat/json’s', async () => {
      const message = (await chat().invoke(messages)) as AIMessageChunk;
      expect(summary(message)).toEqual(expected(reference));
    });
  });

  describe('faults', () => {
    const gateway = useOpenAiGateway('moonshot', 'kimi-k2-0905-preview');
    const messages = [{ role: 'user', content: 'tell me a story' }];

    it.each(['eof-after=3', 'no-done;eof-after=3', 'error-event-at=3'])('a cut upstream (%s) reaches stream() and invoke() as an error', async (scenario) => {
      gateway.emulator.setScenario(scenario);
      const model = modelFor(gateway, 'kimi-k2-0905-preview');
      await expect(
        (async () => {
          for await (const chunk of await model.stream(messages)) void chunk;
        })(),
      ).rejects.toThrow(/cut|ended|error|incomplete/i);
      await expect(model.invoke(messages)).rejects.toThrow();
    });

    it('an abort in the client closes the upstream request', async () => {
      gateway.emulator.setScenario('pace=20');
      const controller = new AbortController();
      const model = modelFor(gateway, 'kimi-k2-0905-preview');
      const stream = await model.stream([{ role: 'user', content: 'abort me' }], { signal: controller.signal });
      const upstream = await gateway.emulator.waitForRequest((request) => String(JSON.stringify(request.body)).includes('abort me'));
      let pieces = 0;
      await expect(
        (async () => {
          for await (const chunk of stream) if (chunk.content !== '' && ++pieces === 1) controller.abort();
        })(),
      ).rejects.toThrow(/abort/i);
      await upstream.closed;
      expect(upstream.closedEarly).toBe(true);
    });
  });
});
