import type { UIMessage } from 'ai';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import type { LlmClientOutput } from '../../src/core/schemas';
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { createChatHandlers } from '../../src/web/createChatHandlers';
import { startNestApp, startExpressRouter } from '../nestjs/startNestApp';
import { startHonoChat } from '../web/startHonoChat';
import { rebuildUiMessage, validUiParts } from '../helpers/uiMessageParts';

/**
 * The AI SDK's `POST /chat/ui` is the serving core's: Express's router, Nest's module (with and without Nest's body
 * parser) and the web handlers (Hono) answer with the same statuses, headers and bytes; every part passes `ai`'s own
 * `uiMessageChunkSchema` (as `DefaultChatTransport` reads it), and `readUIMessageStream` rebuilds the text, reasoning
 * and tool calls `/chat/json` answers to the same request, against the emulator; a tool round trip in DeepSeek's
 * thinking mode holds; a cut upstream ends in an error part, never a finish.
 */

const KEY = 'sk-ui';
const TOOLS = [{ type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const userText = (text: string): UIMessage => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });
/** What `DefaultChatTransport({ body: { model } })` sends. */
const uiBody = (model: string | undefined, messages: UIMessage[], extra: Record<string, unknown> = {}) => ({ id: 'chat-1', messages, trigger: 'submit-message', messageId: undefined, ...(model === undefined ? {} : { model }), ...extra });

interface Target {
  name: string;
  url: string;
  close(): Promise<void>;
}

const post = async (url: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }, path = '/chat/ui') => {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type'), protocol: res.headers.get('x-vercel-ai-ui-message-stream'), text: await res.text() };
};


/** A rebuilt message's text, reasoning and tool calls, as `/chat/json` says them. */
const said = (message: UIMessage | undefined) => ({
  content: (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
  reasoning: (message?.parts ?? []).flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join(''),
  calls: (message?.parts ?? []).flatMap((part) => (part.type.startsWith('tool-') ? [{ id: (part as { toolCallId: string }).toolCallId, name: part.type.slice(5), input: (part as { input: unknown }).input }] : [])),
});
const saidByJson = (output: LlmClientOutput) => ({
  content: output.message.content,
  reasoning: output.message.reasoning_content ?? '',
  calls: (output.message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) as unknown })),
});

describe('POST /chat/ui through every adapter', () => {
  let emulator: Emulator;
  let client: ChatClient;
  const targets: Target[] = [];
  const logs: ChatRequestLog[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 7 });
    client = createChatClient({ baseUrl: emulator.url, model: 'deepseek-chat', retry: 0, timeouts: { firstChunk: 5000, idle: 2000 } });
    const express = await startExpressRouter({ client: { baseUrl: emulator.url, model: 'deepseek-chat', retry: 0 }, apiKeys: [KEY] });
    targets.push({ name: 'express', url: express.url, close: express.close });
    for (const bodyParser of [false, true]) {
      const nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, apiKeys: [KEY] })] }, { bodyParser });
      targets.push({ name: `nest (bodyParser: ${bodyParser})`, url: nest.url, close: nest.close });
    }
    const { ui } = createChatHandlers({ client, apiKeys: [KEY], log: (entry) => logs.push(entry) });
    const hono = await startHonoChat({ client, apiKeys: [KEY] }, (app) => app.post('/chat/ui', (c) => ui(c.req.raw)));
    targets.push({ name: 'web (Hono)', url: hono.url, close: hono.close });
  });
  afterAll(async () => {
    for (const target of targets) await target.close();
    await client.close();
    await emulator.close();
  });

  it('answer the same bytes: the stream and the refusals (the protocol\'s error part, with its status)', async () => {
    const results = new Map<string, unknown[]>();
    for (const target of targets) {
      results.set(target.name, [
        await post(target.url, uiBody('deepseek-reasoner', [userText('why is the sky blue?')])),
        await post(target.url, uiBody(undefined, [userText('hi')])),
        await post(target.url, uiBody(undefined, [userText('hi')]), { authorization: 'Bearer sk-wrong' }),
        await post(target.url, '{"messages": ['),
        await post(target.url, uiBody(undefined, [{ id: 'u', role: 'user', parts: [{ type: 'file', mediaType: 'application/pdf', url: 'data:,x' }] }])),
      ]);
    }
    const [first, ...others] = [...results.values()];
    for (const other of others) expect(other).toEqual(first);
    const [reasoned, plain, unauthorized, malformed, badPart] = first as Array<{ status: number; type: string; protocol: string | null; text: string }>;
    for (const answer of [reasoned!, plain!]) {
      expect(answer).toMatchObject({ status: 200, type: 'text/event-stream', protocol: 'v1' });
      expect(answer.text.startsWith('data: {"type":"start"}\n\ndata: {"type":"start-step"}\n\n')).toBe(true);
      expect(answer.text).toMatch(/data: \{"type":"finish-step"\}\n\ndata: \{"type":"finish","messageMetadata":\{"finish_reason":"stop",[^\n]*\}\n\ndata: \[DONE\]\n\n$/);
    }
    expect(reasoned!.text).toContain('"type":"reasoning-delta"');
    expect(plain!.text).not.toContain('"type":"reasoning-');
    for (const [refusal, status, words] of [[unauthorized!, 401, ''], [malformed!, 400, ''], [badPart!, 400, 'messages.0.parts.0.mediaType']] as const) {
      expect(refusal).toMatchObject({ status, type: 'application/json' });
      expect(JSON.parse(refusal.text)).toEqual({ type: 'error', errorText: expect.stringContaining(words) });
    }
  });

  it.each([
    ['text', 'deepseek-chat', {}],
    ['reasoning', 'deepseek-reasoner', {}],
    ['tool calls', 'deepseek-chat', { tools: TOOLS }],
    ['reasoning and tool calls', 'deepseek-reasoner', { tools: TOOLS }],
  ])("%s: every part passes ai's schema, and readUIMessageStream rebuilds /chat/json's answer", async (_name, model, extra) => {
    const url = targets[0]!.url;
    const question = 'What is the weather in Paris? Use get_weather.';
    const ui = await post(url, uiBody(model, [userText(question)], extra));
    expect(ui.status).toBe(200);
    const { message, error } = await rebuildUiMessage(await validUiParts(ui.text));
    const json = await post(url, { model, messages: [{ role: 'user', content: question }], ...extra }, undefined, '/chat/json');
    expect(json.status).toBe(200);
    expect(error).toBeUndefined();
    const expected = saidByJson(JSON.parse(json.text) as LlmClientOutput);
    expect(said(message)).toEqual(expected);
    expect(expected.content.length + expected.calls.length).toBeGreaterThan(0);
  });

  it("a client-side tool's result goes back as a tool message, with DeepSeek's reasoning round trip: the next answer is text", async () => {
    const url = targets[0]!.url;
    const question = userText('What is the weather in Paris? Use get_weather.');
    const first = await rebuildUiMessage(await validUiParts((await post(url, uiBody('deepseek-reasoner', [question], { tools: TOOLS }))).text));
    const assistant = first.message!;
    // What useChat's addToolResult does: the tool part gets its output.
    const answered: UIMessage = {
      ...assistant,
      parts: assistant.parts.map((part) => (part.type.startsWith('tool-') ? { ...part, state: 'output-available', output: { celsius: 18 } } : part)) as UIMessage['parts'],
    };
    expect(answered.parts.filter((part) => part.type === 'tool-get_weather')).toHaveLength(1);
    const next = await post(url, uiBody('deepseek-reasoner', [question, answered], { tools: TOOLS }));
    expect(next.status).toBe(200);
    const sent = emulator.requests.at(-1)!.body as { messages: Array<{ role: string; reasoning_content?: string; content: string }> };
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(sent.messages[1]!.reasoning_content).toBe(said(assistant).reasoning);
    expect(sent.messages[2]!.content).toBe('{"celsius":18}');
    const { message, error } = await rebuildUiMessage(await validUiParts(next.text));
    expect(error).toBeUndefined();
    expect(said(message).calls).toEqual([]);
    expect(said(message).content.length).toBeGreaterThan(0);
  });

  it('a cut upstream mid-answer ends in an error part: readUIMessageStream reports it, and no finish or [DONE] comes', async () => {
    for (const target of targets) {
      const cut = await post(target.url, uiBody('deepseek-chat#tokens=60;pace=20;reset-after=30', [userText('tell me a long story')]));
      expect(cut.status).toBe(200);
      const parts = await validUiParts(cut.text);
      const types = parts.map((part) => part.type);
      expect([target.name, types.at(-1), types.includes('finish'), cut.text.endsWith('data: [DONE]\n\n'), types.includes('text-delta')]).toEqual([target.name, 'error', false, false, true]);
      const { error } = await rebuildUiMessage(parts);
      expect(error).toBeDefined();
    }
  });

  it("logs one entry per request as the other endpoints: /chat/ui, the model, the usage of the finish part's metadata", async () => {
    const web = targets.find((target) => target.name === 'web (Hono)')!;
    logs.length = 0;
    const answer = await post(web.url, uiBody('deepseek-reasoner', [userText('log me')]));
    const refused = await post(web.url, uiBody(undefined, [{ id: 'u', role: 'robot', parts: [] } as unknown as UIMessage]));
    const finish = (await validUiParts(answer.text)).find((part) => part.type === 'finish') as { messageMetadata: { usage: unknown } };
    await new Promise((resolve) => setTimeout(resolve, 50)); // the entry is written when the response ends
    expect(refused.status).toBe(400);
    expect(logs).toEqual([
      expect.objectContaining({ endpoint: '/chat/ui', method: 'POST', status: 200, result: 'completed', model: 'deepseek-reasoner', usage: finish.messageMetadata.usage }),
      expect.objectContaining({ endpoint: '/chat/ui', method: 'POST', status: 400, error: expect.objectContaining({ code: 'invalid_request' }) }),
    ]);
  });
});
