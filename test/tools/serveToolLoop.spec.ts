/**
 * The tool loop served by a service of one's own, over loopback: `toToolLoopOutput` on `/chat/json`'s writer,
 * `toToolLoopChunks` on the NDJSON and SSE writers (node's `sendJson` / `sendNdjson` / `sendSse`, and the web
 * `toResponse`, byte for byte the same), tool activity as the documented extensions, a failing tool as the endpoint's
 * error — a real status before the commit, the in-band frame after it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { LlmClientOutputChunk } from '../../src/core/schemas';
import { createDemandGate } from '../../src/core/createDemandGate';
import { sendJson } from '../../src/node/sendJson';
import { sendNdjson } from '../../src/node/sendNdjson';
import { sendSse } from '../../src/node/sendSse';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { defineTool } from '../../src/tools/defineTool';
import { runTools } from '../../src/tools/runTools';
import { toToolLoopChunks } from '../../src/tools/toToolLoopChunks';
import { toToolLoopOutput } from '../../src/tools/toToolLoopOutput';
import { toResponse } from '../../src/web/toResponse';
import { rawRequest } from '../helpers/rawRequest';
import { startServer, type TestServer } from '../helpers/startServer';

const getWeather = defineTool({ schema: z.object({ city: z.string() }), execute: ({ city }) => ({ city, sky: '晴' }) });
const broken = defineTool({
  schema: z.object({ city: z.string() }),
  execute: () => {
    throw new Error('secret internal host db-7.internal refused');
  },
});
const REQUEST = { model: 'deepseek-chat', thinking: { type: 'enabled' }, messages: [{ role: 'user' as const, content: 'Use get_weather for 杭州' }] };

const dataOf = (text: string): string[] =>
  text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length));

describe('serving the tool loop', () => {
  let emulator: Emulator;
  let client: ChatClient;
  let server: TestServer;
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 9 });
    client = createChatClient({ provider: 'deepseek', baseUrl: emulator.url, apiKey: 'sk-test', retry: false });
    server = await startServer((req: IncomingMessage, res: ServerResponse) => {
      const tools = { get_weather: req.url?.includes('broken') === true ? broken : getWeather };
      const loop = runTools(client, REQUEST, { tools });
      const demand = createDemandGate();
      if (req.url?.startsWith('/agent/json')) void sendJson(res, loop.pipe(toToolLoopOutput()));
      else if (req.url?.startsWith('/agent/stream')) void sendNdjson(res, loop.pipe(toToolLoopChunks()), { demand });
      else void sendSse(res, loop.pipe(toToolLoopChunks()), { demand });
    });
  });
  afterAll(async () => {
    await server.close();
    await client.close();
    await emulator.close();
  });

  it('/chat/json: the final answer, usage summed over the steps', async () => {
    const res = await rawRequest(`${server.url}/agent/json`, { body: {} });
    expect(res.status).toBe(200);
    const answer = JSON.parse(res.body) as { done: boolean; message: { content: string }; finish_reason: string; usage: { total_tokens: number } };
    expect(answer).toMatchObject({ done: true, finish_reason: 'stop', message: { role: 'assistant', content: expect.stringMatching(/^关于「\{"city":/) } });
    expect(answer.usage.total_tokens).toBeGreaterThan(0);
  });

  it('NDJSON and SSE: the same contract chunks, tool activity as extensions, the steps told apart; the web toResponse writes the same bytes', async () => {
    const ndjson = await rawRequest(`${server.url}/agent/stream`, { body: {} });
    expect(ndjson.status).toBe(200);
    const lines = ndjson.body.split('\n').filter((line) => line !== '');
    const chunks = lines.map((line) => JSON.parse(line) as LlmClientOutputChunk);
    for (const chunk of chunks) expect(LlmClientOutputChunk.parse(chunk)).toEqual(chunk); // every field is the contract's
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    expect(chunks.map((c) => c.done)).toEqual(chunks.map((_, i) => i === chunks.length - 1));
    const call = chunks.find((c) => c.message.tool_calls !== undefined)!;
    expect(call).toMatchObject({ step: 0, message: { content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather' } }] } });
    const result = chunks.find((c) => c.tool_result !== undefined)!;
    expect(result.tool_result).toEqual({ tool_call_id: call.message.tool_calls![0]!.id, name: 'get_weather', outcome: 'ok', content: expect.stringMatching(/^\{"city":".+","sky":"晴"\}$/) });
    expect(new Set(chunks.map((c) => c.step))).toEqual(new Set([0, 1]));
    expect(chunks.some((c) => c.step === 0 && c.message.reasoning_content !== undefined)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ done: true, finish_reason: 'stop', step: 1, usage: { total_tokens: expect.any(Number) } });

    const sse = await rawRequest(`${server.url}/agent/sse`, { body: {} });
    expect(sse.status).toBe(200);
    const payloads = dataOf(sse.body);
    expect(payloads.at(-1)).toBe('[DONE]');
    expect(payloads.slice(0, -1).map((p) => JSON.parse(p) as unknown)).toEqual(chunks);

    const web = await toResponse(runTools(client, REQUEST, { tools: { get_weather: getWeather } }).pipe(toToolLoopChunks()), 'sse');
    expect(web.status).toBe(200);
    expect(await web.text()).toBe(sse.body);
  });

  it('a failing tool: /chat/json answers 500 tool_failed naming the tool, never its own words', async () => {
    const res = await rawRequest(`${server.url}/agent/json?broken`, { body: {} });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: { message: 'the tool "get_weather" failed', type: 'server_error', code: 'tool_failed' } });
  });

  it('a failing tool after the commit: the in-band error frame, then the end of the stream', async () => {
    const sse = await rawRequest(`${server.url}/agent/sse?broken`, { body: {} });
    expect(sse.status).toBe(200); // the reasoning was already streamed
    expect(sse.body).toMatch(/event: error\ndata: \{"message":"the tool \\"get_weather\\" failed","type":"server_error","code":"tool_failed"\}\n\ndata: \[DONE\]\n\n$/);
    expect(sse.body).not.toContain('db-7');
  });
});
