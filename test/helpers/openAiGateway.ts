import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { chatRouter } from '../../src/express/chatRouter';
import type { EmulatorDialect } from '../../src/testing/EmulatorDialect';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

/** The key the test gateway accepts (OpenAI clients send it as `Authorization: Bearer`). */
export const GATEWAY_KEY = 'sk-gateway-test';

/** A chat router in front of one emulator, for the OpenAI clients' tests. */
export interface OpenAiGateway {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The clients' base URL: `${url}/v1`. */
  baseURL: string;
  emulator: Emulator;
  client: ChatClient;
  /** What `POST /chat/json` answers to `body`: the reference the clients' results are held to. */
  reference(body: Record<string, unknown>): Promise<Reference>;
  /**
   * What `POST /chat/json` answers to the body the upstream last received (a client's own request, as the gateway
   * forwarded it: the emulator's answer is a function of the body, and clients shape tools their own way).
   */
  referenceOfLast(): Promise<Reference>;
  close(): Promise<void>;
}

/** The parts of a `/chat/json` answer the clients must reproduce. */
export interface Reference {
  content: string;
  reasoning: string | undefined;
  refusal: string | undefined;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string | undefined;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
}

/** Starts an emulator of `dialect` and a chat router (with a key and short deadlines) in front of it. */
export async function startOpenAiGateway(dialect: EmulatorDialect, model: string): Promise<OpenAiGateway> {
  const emulator = await startEmulator({ dialect, seed: 7 });
  const client = createChatClient({ baseUrl: emulator.url, model, retry: 0, timeouts: { firstChunk: 2000, idle: 1000 } });
  const app = express();
  app.use(chatRouter({ client, apiKeys: [GATEWAY_KEY], heartbeatMs: 100 }));
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gateway: OpenAiGateway = {
    url,
    baseURL: `${url}/v1`,
    emulator,
    client,
    async reference(body) {
      const res = await fetch(`${url}/chat/json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}` },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as {
        message: { content: string; reasoning_content?: string; refusal?: string; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
        finish_reason?: string;
        usage?: Reference['usage'];
      };
      if (res.status !== 200) throw new Error(`/chat/json answered ${res.status}: ${JSON.stringify(json)}`);
      return {
        content: json.message.content,
        reasoning: json.message.reasoning_content,
        refusal: json.message.refusal,
        toolCalls: (json.message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
        finishReason: json.finish_reason,
        usage: json.usage && { prompt_tokens: json.usage.prompt_tokens, completion_tokens: json.usage.completion_tokens, total_tokens: json.usage.total_tokens },
      };
    },
    async referenceOfLast() {
      const latest = emulator.requests.at(-1);
      if (latest === undefined) throw new Error('the upstream received no request yet');
      return gateway.reference(latest.body as Record<string, unknown>);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await client.close();
      await emulator.close();
    },
  };
  return gateway;
}

/** A tool the emulated model calls when the message names it. */
export const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  },
};

/** The cases every client is held to: per dialect, text, reasoning, tool calls (Moonshot without `index`), refusal. */
export const OPENAI_CASES: Array<{ name: string; dialect: EmulatorDialect; model: string; tools?: boolean; prompt: string }> = [
  { name: 'deepseek chat', dialect: 'deepseek', model: 'deepseek-chat', prompt: '你好，介绍一下 RxJS 🚀' },
  { name: 'deepseek reasoner', dialect: 'deepseek', model: 'deepseek-reasoner', prompt: '为什么天空是蓝色的？' },
  { name: 'deepseek tool call', dialect: 'deepseek', model: 'deepseek-chat', tools: true, prompt: 'get_weather in Paris' },
  { name: 'moonshot thinking', dialect: 'moonshot', model: 'kimi-k2-thinking', prompt: 'Explain backpressure' },
  { name: 'moonshot tool call without index', dialect: 'moonshot', model: 'kimi-k2-0905-preview#no-tool-index', tools: true, prompt: 'get_weather in 北京' },
  { name: 'openai chat', dialect: 'openai', model: 'gpt-4o-mini', prompt: 'Hello there' },
  { name: 'openai refusal', dialect: 'openai', model: 'gpt-4o-mini#refusal', prompt: 'Something forbidden' },
];
