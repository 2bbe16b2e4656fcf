/**
 * DeepSeek's thinking mode with tools, the round trip client projects most often get wrong: question → tool call →
 * tool result → answer. DeepSeek (and the emulator's DeepSeek dialect) answers HTTP 400 when the assistant turn that
 * made the tool calls comes back without its `reasoning_content`; the message chatflux accumulates is ready to be
 * sent back as it is — through the client and through the gateway.
 */
import { last, lastValueFrom } from 'rxjs';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { isUpstreamHttpError, type UpstreamHttpError } from '../../src/core/errors';
import type { ChatRequest } from '../../src/core/schemas';
import { loadGatewayConfig } from '../../gateway/src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../../gateway/src/startGateway';
import { accumulateDeltas } from '../../src/operators/accumulateDeltas';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../helpers/rawRequest';
import { expectErrorBeforeCommit, expectJsonAnswer } from '../helpers/wireAssertions';
import { dataOf, rawPost } from '../testing/helpers/rawPost';

const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const QUESTION = { role: 'user' as const, content: 'What is the weather in Hangzhou? Use get_weather.' };
const THINKING = { model: 'deepseek-chat', thinking: { type: 'enabled' }, tools: [WEATHER] };
const MESSAGE_400 = 'The `reasoning_content` in the thinking mode must be passed back to the API.';

const toolResult = (id: string) => ({
  role: 'tool' as const,
  tool_call_id: id,
  content: '{"weather":"晴","celsius":21}',
});

describe('DeepSeek thinking mode + tools: the three-step round trip', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 11 });
  });
  afterAll(async () => emulator.close());

  describe('the emulator answers as DeepSeek does', () => {
    const call = {
      id: 'call_00_x',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Hangzhou"}' },
    };
    const turn = (assistant: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      rawPost(emulator.url, {
        ...THINKING,
        stream: true,
        messages: [
          QUESTION,
          { role: 'assistant', content: null, tool_calls: [call], ...assistant },
          toolResult('call_00_x'),
        ],
        ...extra,
      });

    it('400 invalid_request_error when the assistant turn with tool calls lacks its reasoning_content', async () => {
      const res = await turn({});
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body.toString())).toEqual({
        error: { message: MESSAGE_400, type: 'invalid_request_error', param: null, code: 'invalid_request_error' },
      });
      expect((await turn({ reasoning_content: null })).status).toBe(400);
      expect((await turn({}, { model: 'deepseek-reasoner', thinking: undefined })).status).toBe(400);
    });

    it('200 with the reasoning sent back, or outside thinking mode', async () => {
      const answered = await turn({ reasoning_content: 'call the tool' });
      expect(answered.status).toBe(200);
      expect(dataOf(answered.body.toString()).at(-1)).toBe('[DONE]');
      expect((await turn({}, { thinking: { type: 'disabled' } })).status).toBe(200);
      expect((await turn({}, { thinking: undefined })).status).toBe(200); // deepseek-chat without thinking
    });
  });

  describe('through the client', () => {
    let client: ChatClient;
    beforeAll(() => {
      client = createChatClient({ provider: 'deepseek', baseUrl: emulator.url, apiKey: 'sk-test', retry: false });
    });
    afterAll(async () => client.close());

    it('chunks → accumulateDeltas: the assistant message goes back as it is, and the answer comes', async () => {
      const first = await lastValueFrom(
        client.chunks({ ...THINKING, messages: [QUESTION] }).pipe(accumulateDeltas(), last()),
      );
      const choice = first.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      const assistant = choice.message;
      expect(assistant.reasoning_content?.length).toBeGreaterThan(0);
      expect(assistant.content).toBeNull();
      const calls = assistant.tool_calls ?? [];
      expect(calls.map((c) => c.function.name)).toEqual(['get_weather']);
      expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ city: expect.any(String) });

      const messages = [QUESTION, assistant, toolResult(calls[0]!.id)] as ChatRequest['messages'];
      const answer = await lastValueFrom(client.json({ ...THINKING, messages }));
      expect(answer.finish_reason).toBe('stop');
      expect(answer.message.content).toMatch(/^关于「\{"weather":"晴"/); // it answers the tool result
      expect(answer.message.reasoning_content?.length).toBeGreaterThan(0);
      const sent = await emulator.waitForRequest(
        (r) => JSON.stringify(r.body).includes(calls[0]!.id) && r.status === 200,
      );
      expect((sent.body as { messages: unknown[] }).messages[1]).toEqual(JSON.parse(JSON.stringify(assistant)));
    });

    it('json(): the output message goes back as it is too; without its reasoning_content DeepSeek refuses (400)', async () => {
      const first = await lastValueFrom(client.json({ ...THINKING, messages: [QUESTION] }));
      expect(first.finish_reason).toBe('tool_calls');
      const { message } = first;
      const id = message.tool_calls![0]!.id;
      const answer = await lastValueFrom(client.json({ ...THINKING, messages: [QUESTION, message, toolResult(id)] }));
      expect(answer.finish_reason).toBe('stop');

      const { reasoning_content: _dropped, ...stripped } = message;
      const error = await lastValueFrom(
        client.json({ ...THINKING, messages: [QUESTION, stripped, toolResult(id)] }),
      ).catch((e: unknown) => e);
      expect(isUpstreamHttpError(error)).toBe(true);
      expect((error as UpstreamHttpError).status).toBe(400);
      expect((error as Error).message).toContain(MESSAGE_400);
    });
  });

  describe('through the gateway', () => {
    let gateway: RunningGateway;
    beforeAll(async () => {
      gateway = await startGateway(
        loadGatewayConfig({ CHATFLUX_BASE_URL: emulator.url, CHATFLUX_MODEL: 'deepseek-chat', PORT: '0' }),
        { log: () => undefined },
      );
    });
    afterAll(async () => gateway.close(0));

    it('/chat/json twice: the first answer’s message, sent back with the tool result, gets the final answer', async () => {
      const first = expectJsonAnswer(
        await rawRequest(`${gateway.url}/chat/json`, { body: { ...THINKING, messages: [QUESTION] } }),
      );
      expect(first.finish_reason).toBe('tool_calls');
      expect(first.message.reasoning_content?.length).toBeGreaterThan(0);
      const id = first.message.tool_calls![0]!.id;
      const second = expectJsonAnswer(
        await rawRequest(`${gateway.url}/chat/json`, {
          body: { ...THINKING, messages: [QUESTION, first.message, toolResult(id)] },
        }),
      );
      expect(second.finish_reason).toBe('stop');
      expect(second.message.content.length).toBeGreaterThan(0);

      const { reasoning_content: _dropped, ...stripped } = first.message;
      const refused = await rawRequest(`${gateway.url}/chat/json`, {
        body: { ...THINKING, messages: [QUESTION, stripped, toolResult(id)] },
      });
      const body = expectErrorBeforeCommit(refused, '/chat/json', 502, 'invalid_request_error');
      expect(body.message).toContain(MESSAGE_400);
    });
  });
});
