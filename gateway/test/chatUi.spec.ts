import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { LlmClientOutput } from 'chatflux';
import type { ChatRequestLog } from '../../src/express/chatRouter';
import type { Emulator } from '../../src/testing/startEmulator';
import type { RunningGateway } from '../src/startGateway';
import { startRoutedGateway } from './startRoutedGateway';

/**
 * The AI SDK's `POST /chat/ui` on the gateway, read by `ai`'s own `DefaultChatTransport` (what `useChat` sends and
 * reads) and `readUIMessageStream`, in front of the emulator: `model` beside `messages` names a route (a cut primary
 * continued by its fallback: one message), else the configured default; a cut upstream on a route without
 * continuation reaches the reader as an error, never as a finished message; an abort closes the upstream request;
 * the key is checked and the request logged as `/chat/ui`.
 */
describe('startGateway: the AI SDK UI message stream (/chat/ui)', () => {
  let gateway: RunningGateway;
  let emulators: readonly Emulator[];
  let logs: ChatRequestLog[];
  let close: () => Promise<void>;
  const KEY = 'sk-gw-ui';
  beforeAll(async () => {
    // The routes and keys from the gateway's config file: `ui-routed` means "t0 (cut after 8 events), then t1";
    // `ui-cut` is t2 alone, cut after 40, without continuation; `ui-slow` is t3, slow (for the abort).
    ({ gateway, emulators, logs, close } = await startRoutedGateway(KEY, { routed: 'ui-routed', cut: 'ui-cut', slow: 'ui-slow' }));
  });
  afterAll(() => close());

  const transport = (model?: string, key = KEY) =>
    new DefaultChatTransport<UIMessage>({ api: `${gateway.url}/chat/ui`, headers: { Authorization: `Bearer ${key}` }, ...(model === undefined ? {} : { body: { model } }) });
  const userText = (text: string): UIMessage => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });
  /** What useChat does with the transport's stream: the last message readUIMessageStream builds, the parts, the error. */
  const send = async (model: string | undefined, text: string, abortSignal?: AbortSignal) => {
    const stream = await transport(model).sendMessages({ chatId: 'c1', messages: [userText(text)], trigger: 'submit-message', messageId: undefined, abortSignal });
    const parts: UIMessageChunk[] = [];
    const [mine, reader] = stream.tee();
    let error: unknown;
    let message: UIMessage | undefined;
    const collecting = (async () => {
      for await (const part of mine as unknown as AsyncIterable<UIMessageChunk>) parts.push(part);
    })();
    try {
      for await (const snapshot of readUIMessageStream({ stream: reader, onError: (e) => (error = e) })) message = snapshot;
    } catch (e) {
      error = e;
    }
    await collecting.catch((e: unknown) => (error ??= e));
    return { message, parts, error, text: message?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') ?? '' };
  };
  const chatJson = async (body: Record<string, unknown>): Promise<LlmClientOutput> => {
    const response = await fetch(`${gateway.url}/chat/json`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    return (await response.json()) as LlmClientOutput;
  };

  it("without a model, the default's answer: /chat/json's text, and a log entry of /chat/ui", async () => {
    logs.length = 0;
    const expected = await chatJson({ messages: [{ role: 'user', content: 'Hello there' }] });
    const { text, parts, error } = await send(undefined, 'Hello there');
    expect(error).toBeUndefined();
    expect(text).toBe(expected.message.content);
    expect(parts.at(-1)).toEqual({ type: 'finish', messageMetadata: expect.objectContaining({ finish_reason: 'stop' }) });
    expect(logs.at(-1)).toEqual(expect.objectContaining({ endpoint: '/chat/ui', status: 200, result: 'completed', usage: expected.usage }));
  });

  it('serves a model name by its route: a cut primary is continued by the fallback, as one message', async () => {
    const healthy = await chatJson({ model: 'deepseek-chat', messages: [{ role: 'user', content: '讲讲 failover' }] });
    const before = [emulators[0]!.requests.length, emulators[1]!.requests.length];
    const { text, parts, error } = await send('ui-routed', '讲讲 failover');
    expect(error).toBeUndefined();
    // The route sends deepseek-chat to emulators of the same seed as the built-in one, which answered `healthy`.
    expect(text).toBe(healthy.message.content);
    expect(parts.filter((part) => part.type === 'start')).toHaveLength(1);
    expect(parts.at(-1)).toEqual({ type: 'finish', messageMetadata: expect.objectContaining({ finish_reason: 'stop', attempts: expect.any(Array) }) });
    expect([emulators[0]!.requests.length - before[0]!, emulators[1]!.requests.length - before[1]!]).toEqual([1, 1]); // cut, then continued
    await new Promise((resolve) => setTimeout(resolve, 20)); // the entry is written when the response ends
    expect(logs.at(-1)).toEqual(expect.objectContaining({ endpoint: '/chat/ui', status: 200, target: 't1', attempts: [expect.objectContaining({ target: 't0' }), expect.objectContaining({ target: 't1' })] }));
  });

  it('a cut upstream reaches the reader as an error part, after the text had begun, and never as a finish', async () => {
    const { parts, error, text } = await send('ui-cut', 'Tell me more');
    expect(text.length).toBeGreaterThan(0);
    expect(parts.map((part) => part.type)).not.toContain('finish');
    expect(parts.at(-1)).toEqual({ type: 'error', errorText: expect.any(String) });
    expect(error).toBeDefined();
  });

  it("an abort by the transport (useChat's stop()) closes the upstream request", async () => {
    const controller = new AbortController();
    const stream = await transport('ui-slow').sendMessages({ chatId: 'c2', messages: [userText('A long story')], trigger: 'submit-message', messageId: undefined, abortSignal: controller.signal });
    const reader = stream.getReader();
    for (let part = await reader.read(); !part.done && part.value.type !== 'text-delta'; part = await reader.read());
    controller.abort();
    await reader.read().catch(() => undefined);
    const upstream = await emulators[3]!.waitForRequest();
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
    expect(upstream.completed).toBe(false);
  });

  it("takes the key; refuses a wrong one with 401 in the protocol's error shape, which the transport throws", async () => {
    const refused = await transport(undefined, 'sk-wrong')
      .sendMessages({ chatId: 'c3', messages: [userText('Hi')], trigger: 'submit-message', messageId: undefined, abortSignal: undefined })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(JSON.parse((refused as Error).message)).toEqual({ type: 'error', errorText: expect.any(String) });
  });

  it('counts its requests and its streams in flight in the metrics by their route, /chat/ui', async () => {
    await send(undefined, 'Count me');
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(text).toMatch(/^chatflux_gateway_requests_total\{[^}]*http_route="\/chat\/ui"[^}]*http_response_status_code="200"[^}]*\} [1-9]/m);
    expect(text).toMatch(/^chatflux_gateway_streams_in_flight\{[^}]*http_route="\/chat\/ui"[^}]*\} 0/m);
  });
});
