import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool, type ToolSet } from 'ai';
import { GATEWAY_KEY, OPENAI_CASES, WEATHER_TOOL, type OpenAiGateway, type Reference } from '../helpers/openAiGateway';
import { useOpenAiGateway } from '../helpers/useOpenAiGateway';

/**
 * The AI SDK's OpenAI-compatible provider (`ai` + `@ai-sdk/openai-compatible`) against `POST /v1/chat/completions`
 * in front of each emulator dialect: `streamText` and `generateText` give `/chat/json`'s text, reasoning, tool calls
 * and usage; a cut upstream is an error part, never a finished answer; an abort closes the upstream request.
 */

const providerFor = (gateway: OpenAiGateway) =>
  createOpenAICompatible({ name: 'chatflux', baseURL: gateway.baseURL, apiKey: GATEWAY_KEY, includeUsage: true });

const tools: ToolSet = {
  get_weather: tool({ description: WEATHER_TOOL.function.description, inputSchema: jsonSchema(WEATHER_TOOL.function.parameters as Parameters<typeof jsonSchema>[0]) }),
};

interface Result {
  text: string;
  reasoningText: string | undefined;
  toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>;
  usage: { inputTokens: number | undefined; outputTokens: number | undefined; totalTokens: number | undefined };
}
const summary = async (result: { text: PromiseLike<string> | string; reasoningText: PromiseLike<string | undefined> | string | undefined; toolCalls: PromiseLike<Result['toolCalls']> | Result['toolCalls']; usage: PromiseLike<Result['usage']> | Result['usage'] }) => {
  const usage = await result.usage;
  return {
    content: await result.text,
    reasoning: await result.reasoningText,
    toolCalls: (await result.toolCalls).map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: JSON.stringify(call.input) })),
    usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.totalTokens },
  };
};
const expected = (reference: Reference) => ({
  content: reference.content,
  reasoning: reference.reasoning,
  toolCalls: reference.toolCalls.map((call) => ({ ...call, arguments: JSON.stringify(JSON.parse(call.arguments)) })),
  usage: reference.usage,
});

describe('POST /v1/chat/completions with the AI SDK (openai-compatible provider)', () => {
  describe.each(OPENAI_CASES.filter((c) => !c.model.includes('#refusal')))('$name', ({ dialect, model, tools: withTools, prompt }) => {
    const gateway = useOpenAiGateway(dialect, model);
    let reference: Reference;

    beforeAll(async () => {
      reference = await gateway.reference({ model, messages: [{ role: 'user', content: prompt }], ...(withTools ? { tools: [WEATHER_TOOL] } : {}) });
    });

    it('streamText: text, reasoning, tool calls and usage equal /chat/json’s', async () => {
      const errors: unknown[] = [];
      const result = streamText({ model: providerFor(gateway).chatModel(model), prompt, maxRetries: 0, ...(withTools ? { tools } : {}), onError: ({ error }) => void errors.push(error) });
      const answer = await summary(result);
      expect(answer).toEqual(expected(withTools ? await gateway.referenceOfLast() : reference));
      expect(errors).toEqual([]);
      expect(await result.finishReason).toBe(withTools ? 'tool-calls' : 'stop');
    });

    it('generateText: the same', async () => {
      const result = await generateText({ model: providerFor(gateway).chatModel(model), prompt, maxRetries: 0, ...(withTools ? { tools } : {}) });
      const answer = await summary(result);
      expect(answer).toEqual(expected(withTools ? await gateway.referenceOfLast() : reference));
    });
  });

  describe('faults', () => {
    const gateway = useOpenAiGateway('deepseek', 'deepseek-chat');
    const prompt = 'tell me a story';

    it.each(['eof-after=3', 'no-done;eof-after=3', 'pace=10;reset-after=3'])('a cut upstream (%s) is an error part, and generateText rejects', async (scenario) => {
      gateway.emulator.setScenario(scenario);
      const model = providerFor(gateway).chatModel('deepseek-chat');
      const errors: unknown[] = [];
      const result = streamText({ model, prompt, maxRetries: 0, onError: ({ error }) => void errors.push(error) });
      const parts: string[] = [];
      for await (const part of result.fullStream) parts.push(part.type);
      expect(parts).toContain('error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ message: expect.stringMatching(/cut|ended|incomplete/i) });
      await expect(generateText({ model, prompt, maxRetries: 0 })).rejects.toThrow();
    });

    it('an abort in the client closes the upstream request', async () => {
      gateway.emulator.setScenario('pace=20');
      const controller = new AbortController();
      const result = streamText({ model: providerFor(gateway).chatModel('deepseek-chat'), prompt: 'abort me', maxRetries: 0, abortSignal: controller.signal, onError: () => undefined });
      let pieces = 0;
      const parts: string[] = [];
      // streamText sends its request once its stream is read.
      const reading = (async () => {
        for await (const part of result.fullStream) {
          parts.push(part.type);
          if (part.type === 'text-delta' && part.text !== '' && ++pieces === 1) controller.abort();
        }
      })();
      const upstream = await gateway.emulator.waitForRequest((request) => String(JSON.stringify(request.body)).includes('abort me'));
      await reading;
      expect(pieces).toBe(1);
      expect(parts.at(-1)).toBe('abort');
      await upstream.closed;
      expect(upstream.closedEarly).toBe(true);
    });
  });
});
