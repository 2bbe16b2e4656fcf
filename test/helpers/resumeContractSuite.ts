/**
 * The resumable answers' contract (issue #30) within one process, as one jest suite any server runs — the Express
 * router, the NestJS module, the web handlers and the gateway: the SAME assertions, against the in-memory log.
 *
 * The suite starts the upstream emulator and asks `start` for two servers in front of it, both with `resumable`: one
 * with the default abandon time (a disconnect is not a cancel) and one that abandons an answer after 300 ms without
 * a reader. Upstream requests are counted and watched through the emulator's request log.
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { startEmulator, type Emulator, type EmulatorRequest } from '../../src/testing/startEmulator';
import { rawRequest } from './rawRequest';
import { expectChunkSequence, ndjsonLines, sseFrames, type SseFrame } from './wireAssertions';
import { SUITE_KEY, wireTargetClientConfig, type WireTarget, type WireTargetSetup } from './wireContractSuite';

/** A second downstream key: it did not start the suite's answers, so it may not resume or cancel them. */
export const OTHER_KEY = 'suite-other-key-9876543210';

const MODEL = 'deepseek-chat';
const STREAM_ID = /^[A-Za-z0-9_-]{22}$/;
const auth = { Authorization: `Bearer ${SUITE_KEY}` };
const other = { Authorization: `Bearer ${OTHER_KEY}` };
const ask = (scenario: string): Record<string, unknown> => ({ model: `${MODEL}#${scenario}`, messages: [{ role: 'user', content: 'Hello, world!' }] });

/** Text up to the end of the `count`-th frame that has an `id:` naming a position, and that id; `undefined` if fewer. */
export function cutAfterEvents(body: string, count: number): { text: string; lastId: string } | undefined {
  let seen = 0;
  let at = 0;
  for (;;) {
    const end = body.indexOf('\n\n', at);
    if (end < 0) return undefined;
    const frame = body.slice(at, end);
    at = end + 2;
    const id = /^id: (.*:\d+)$/m.exec(frame)?.[1];
    if (id !== undefined && ++seen === count) return { text: body.slice(0, at), lastId: id };
  }
}

/**
 * What `useChat`'s `DefaultChatTransport` posts to `/chat/ui` for chat `chatId` (its `body` adding `model` and, to make
 * the answer resumable, `resume: true`).
 */
export const uiChatBody = (chatId: string, scenario: string, resume = true): Record<string, unknown> => ({
  id: chatId,
  messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello, world!' }] }],
  trigger: 'submit-message',
  model: `${MODEL}#${scenario}`,
  ...(resume ? { resume: true } : {}),
});

/** How many UI message parts (`data:` lines other than `[DONE]`) a body holds. */
export const uiPartCount = (body: string): number => (body.match(/^data: \{/gm) ?? []).length;

/** The text of the message `ai`'s `readUIMessageStream` builds from a stream of parts, and whether it finished. */
export async function uiAnswerOf(stream: ReadableStream<UIMessageChunk>): Promise<{ text: string; parts: string[] }> {
  const types: string[] = [];
  const seen = stream.pipeThrough(
    new TransformStream<UIMessageChunk, UIMessageChunk>({
      transform: (part, controller) => {
        types.push(part.type);
        controller.enqueue(part);
      },
    }),
  );
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream: seen })) message = snapshot;
  return { text: (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''), parts: types };
}

/** Text up to the end of the `count`-th line. */
export const cutAfterLines = (body: string, count: number): string | undefined => {
  const lines = body.split('\n');
  return lines.length > count ? `${lines.slice(0, count).join('\n')}\n` : undefined;
};

/** The frames of an SSE body, heartbeats left out. */
const framesOf = (body: string): SseFrame[] => sseFrames(body).filter((frame) => frame.comment === undefined);

/** Resolves with the upstream request `seq`'s end, or rejects after `ms`. */
const closedWithin = (request: EmulatorRequest, ms: number): Promise<void> =>
  Promise.race([request.closed, new Promise<void>((_resolve, reject) => setTimeout(() => reject(new Error(`upstream request still open after ${ms} ms`)), ms))]);

/** What {@link describeResumeContract} asks a server factory to build: the wire suite's setup, with `resumable`. */
export type ResumeTargetSetup = WireTargetSetup & { resumable: { abandonAfterMs: number } };

/**
 * Defines the resume-contract tests for a server factory.
 *
 * @param name - The describe block's name.
 * @param start - Builds the server under test from the setup (it must pass `resumable` on and serve `/chat/streams`).
 */
export function describeResumeContract(name: string, start: (setup: ResumeTargetSetup) => Promise<WireTarget>): void {
  describe(`${name} — resumable answers (in-memory log)`, () => {
    let emulator: Emulator;
    let target: WireTarget;
    let abandoning: WireTarget;
    beforeAll(async () => {
      emulator = await startEmulator({ dialect: 'deepseek', seed: 11 });
      const setup = { client: wireTargetClientConfig(emulator.url, MODEL), apiKeys: [SUITE_KEY, OTHER_KEY], heartbeatMs: 15_000 };
      target = await start({ ...setup, resumable: { abandonAfterMs: 60_000 } });
      abandoning = await start({ ...setup, resumable: { abandonAfterMs: 300 } });
    });
    afterAll(async () => {
      await target.close();
      await abandoning.close();
      await emulator.close();
    });
    const upstreamCount = (): number => emulator.requests.length;
    const latestUpstream = (): EmulatorRequest => emulator.requests.at(-1) as EmulatorRequest;

    it('names no stream on a refusal (401, 400, 415: no answer started), on every resumable endpoint', async () => {
      const refusals: Array<[string, Parameters<typeof rawRequest>[1], number]> = [
        ['/chat/sse', { body: ask('') }, 401],
        ['/chat/stream', { body: ask('') }, 401],
        ['/chat/sse', {}, 401],
        ['/chat/sse', { headers: auth, body: { messages: 'none' } }, 400],
        ['/chat/stream', { headers: auth, body: { messages: [] } }, 400],
        ['/chat/sse?q=%7B', { headers: auth }, 400],
        ['/chat/stream', { headers: { ...auth, 'content-type': 'text/plain' }, body: 'hi' }, 415],
        ['/chat/ui', { headers: auth, body: { ...uiChatBody('refused-chat', ''), messages: 'none' } }, 400],
      ];
      const before = upstreamCount();
      for (const [path, options, status] of refusals) {
        const res = await rawRequest(`${target.baseUrl}${path}`, options);
        expect([path, res.status, res.headers['chatflux-stream-id']]).toEqual([path, status, undefined]);
      }
      expect(upstreamCount()).toBe(before);
    });

    it('answers POST /chat/sse with Chatflux-Stream-Id and an id: naming the stream and the position on every event', async () => {
      const res = await rawRequest(`${target.baseUrl}/chat/sse`, { headers: auth, body: ask('tokens=12') });
      expect(res.status).toBe(200);
      const id = String(res.headers['chatflux-stream-id']);
      expect(id).toMatch(STREAM_ID);
      expect(res.headers['chatflux-resumable']).toBe('local'); // an in-memory log: this instance only
      const frames = framesOf(res.body);
      expect(frames.at(-1)).toEqual({ data: '[DONE]' });
      const values = frames.slice(0, -1);
      values.forEach((frame, position) => expect(frame.id).toBe(`${id}:${position}`));
      expectChunkSequence(values.map((frame) => JSON.parse(frame.data ?? '') as unknown));
      // Without the id lines, the bytes of a plain /chat/sse answer.
      expect(res.body.replace(/^id: .*\n/gm, '')).toBe(values.map((frame) => `data: ${frame.data}\n\n`).join('') + 'data: [DONE]\n\n');
    });

    it('resumes a dropped POST /chat/sse on the same URL with Last-Event-ID: byte for byte, one upstream request', async () => {
      const before = upstreamCount();
      const dropped = await rawRequest(`${target.baseUrl}/chat/sse`, {
        headers: auth,
        body: ask('tokens=60;pace=10'),
        onPiece: (_text, soFar) => (cutAfterEvents(soFar, 20) === undefined ? undefined : 'abort'),
      });
      const id = String(dropped.headers['chatflux-stream-id']);
      const cut = cutAfterEvents(dropped.body, 20);
      expect(cut?.lastId).toBe(`${id}:19`);
      const resumed = await rawRequest(`${target.baseUrl}/chat/sse`, { headers: { ...auth, 'Last-Event-ID': cut?.lastId ?? '' }, body: ask('tokens=60;pace=10') });
      expect(resumed.status).toBe(200);
      expect(resumed.headers['chatflux-stream-id']).toBe(id);
      const whole = await rawRequest(`${target.baseUrl}/chat/streams/${id}`, { headers: { ...auth, Accept: 'text/event-stream' } });
      expect(`${cut?.text}${resumed.body}`).toBe(whole.body);
      const frames = framesOf(whole.body);
      frames.slice(0, -1).forEach((frame, position) => expect(frame.id).toBe(`${id}:${position}`));
      expect(frames.length).toBeGreaterThan(60);
      expect(upstreamCount() - before).toBe(1);
    });

    it('resumes a dropped POST /chat/stream with GET /chat/streams/{id}?after=: the same lines, index = position', async () => {
      const before = upstreamCount();
      const dropped = await rawRequest(`${target.baseUrl}/chat/stream`, {
        headers: auth,
        body: ask('tokens=60;pace=10'),
        onPiece: (_text, soFar) => (cutAfterLines(soFar, 20) === undefined ? undefined : 'abort'),
      });
      const id = String(dropped.headers['chatflux-stream-id']);
      expect(id).toMatch(STREAM_ID);
      const head = cutAfterLines(dropped.body, 20) ?? '';
      const resumed = await rawRequest(`${target.baseUrl}/chat/streams/${id}?after=19`, { headers: auth });
      expect(resumed.status).toBe(200);
      expect(resumed.headers['content-type']).toMatch(/^application\/json/);
      const whole = await rawRequest(`${target.baseUrl}/chat/streams/${id}`, { headers: auth });
      expect(`${head}${resumed.body}`).toBe(whole.body);
      const lines = ndjsonLines(whole.body) as Array<{ index: number; done: boolean }>;
      lines.forEach((line, position) => expect(line.index).toBe(position));
      expect(lines.at(-1)?.done).toBe(true);
      expect(upstreamCount() - before).toBe(1);
    });

    it('resumes an EventSource (GET /chat/sse) reconnecting with Last-Event-ID, and 204s it after the final frame', async () => {
      const url = `${target.baseUrl}/chat/sse?q=${encodeURIComponent(JSON.stringify(ask('tokens=40;pace=10')))}`;
      const before = upstreamCount();
      const dropped = await rawRequest(url, { headers: auth, onPiece: (_text, soFar) => (cutAfterEvents(soFar, 10) === undefined ? undefined : 'abort') });
      const cut = cutAfterEvents(dropped.body, 10);
      const resumed = await rawRequest(url, { headers: { ...auth, 'Last-Event-ID': cut?.lastId ?? '' } });
      expect(resumed.body.endsWith('id: done\nretry: 86400000\ndata: [DONE]\n\n')).toBe(true);
      const id = String(dropped.headers['chatflux-stream-id']);
      const whole = await rawRequest(`${target.baseUrl}/chat/streams/${id}`, { headers: { ...auth, Accept: 'text/event-stream' } });
      expect(`${cut?.text}${resumed.body}`).toBe(whole.body);
      expect(upstreamCount() - before).toBe(1);
      const finished = await rawRequest(url, { headers: { ...auth, 'Last-Event-ID': 'done' } });
      expect(finished.status).toBe(204);
    });

    it('lets only the key that started an answer (or its token) resume or cancel it: any other gets 404, never 403', async () => {
      const res = await rawRequest(`${target.baseUrl}/chat/stream`, { headers: auth, body: ask('tokens=5') });
      const id = String(res.headers['chatflux-stream-id']);
      const notFound = await rawRequest(`${target.baseUrl}/chat/streams/${id}`, { headers: other });
      expect(notFound.status).toBe(404);
      expect(JSON.parse(notFound.body)).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', code: 'stream_not_found' }, done: true });
      const sse = await rawRequest(`${target.baseUrl}/chat/streams/${id}`, { headers: { ...other, Accept: 'text/event-stream' } });
      expect(sse.status).toBe(204);
      const cancel = await rawRequest(`${target.baseUrl}/chat/streams/${id}/cancel`, { method: 'POST', headers: other });
      expect(cancel.status).toBe(404);
      expect((JSON.parse(cancel.body) as { error: { code: string } }).error.code).toBe('stream_not_found');
      const anonymous = await rawRequest(`${target.baseUrl}/chat/streams/${id}`);
      expect(anonymous.status).toBe(401);
      const { token } = JSON.parse((await rawRequest(`${target.baseUrl}/chat/token`, { method: 'POST', headers: auth })).body) as { token: string };
      const withToken = await rawRequest(`${target.baseUrl}/chat/streams/${id}?token=${encodeURIComponent(token)}`);
      expect(withToken.body).toBe(res.body);
      const owner = await rawRequest(`${target.baseUrl}/chat/streams/${id}`, { headers: auth });
      expect(owner.body).toBe(res.body);
    });

    it('answers an unknown id 204 on SSE and 404 stream_not_found on NDJSON, and a malformed after 400', async () => {
      const unknown = 'AAAAAAAAAAAAAAAAAAAAAA';
      expect((await rawRequest(`${target.baseUrl}/chat/streams/${unknown}`, { headers: { ...auth, Accept: 'text/event-stream' } })).status).toBe(204);
      const ndjson = await rawRequest(`${target.baseUrl}/chat/streams/${unknown}`, { headers: auth });
      expect(ndjson.status).toBe(404);
      expect(ndjson.body).toMatch(/"code":"stream_not_found"/);
      const res = await rawRequest(`${target.baseUrl}/chat/stream`, { headers: auth, body: ask('tokens=3') });
      const bad = await rawRequest(`${target.baseUrl}/chat/streams/${String(res.headers['chatflux-stream-id'])}?after=x`, { headers: auth });
      expect(bad.status).toBe(400);
    });

    it('cancels through POST /chat/streams/{id}/cancel: the upstream request is closed within 1 s, every reader gets `cancelled`', async () => {
      let id = '';
      let started!: () => void;
      const streaming = new Promise<void>((resolve) => (started = resolve));
      const original = rawRequest(`${target.baseUrl}/chat/stream`, {
        headers: auth,
        body: ask('tokens=400;pace=20'),
        onHeaders: (_status, headers) => (id = String(headers['chatflux-stream-id'])),
        onPiece: () => started(),
      });
      await streaming;
      const upstream = latestUpstream();
      const reader = rawRequest(`${target.baseUrl}/chat/streams/${id}`, { headers: auth });
      const cancelledAt = performance.now();
      const cancel = await rawRequest(`${target.baseUrl}/chat/streams/${id}/cancel`, { method: 'POST', headers: auth });
      expect(cancel.status).toBe(200);
      expect(JSON.parse(cancel.body)).toEqual({ id, cancelled: true });
      await closedWithin(upstream, 1000);
      expect(performance.now() - cancelledAt).toBeLessThan(1000);
      expect(upstream.completed).toBe(false);
      for (const res of [await original, await reader]) {
        const last = ndjsonLines(res.body).at(-1) as { error?: { code: string }; done: boolean };
        expect(last).toEqual({ error: { message: expect.any(String), type: 'aborted_error', code: 'cancelled' }, done: true });
      }
      const again = await rawRequest(`${target.baseUrl}/chat/streams/${id}/cancel`, { method: 'POST', headers: auth });
      expect(JSON.parse(again.body)).toEqual({ id, cancelled: false });
    });

    it('goes on after a disconnect (not a cancel): the upstream answer completes, and it replays in full', async () => {
      const dropped = await rawRequest(`${target.baseUrl}/chat/stream`, {
        headers: auth,
        body: ask('tokens=40;pace=10'),
        onPiece: (_text, soFar) => (cutAfterLines(soFar, 5) === undefined ? undefined : 'abort'),
      });
      const upstream = latestUpstream();
      await upstream.closed;
      expect(upstream.completed).toBe(true);
      const replay = await rawRequest(`${target.baseUrl}/chat/streams/${String(dropped.headers['chatflux-stream-id'])}`, { headers: auth });
      expect(replay.body.startsWith(cutAfterLines(dropped.body, 5) ?? '-')).toBe(true);
      expectChunkSequence(ndjsonLines(replay.body));
    });

    let chats = 0;
    const chatId = (): string => `chat-${++chats}`;
    const transport = (headers: Record<string, string> = auth): DefaultChatTransport<UIMessage> =>
      new DefaultChatTransport({ api: `${target.baseUrl}/chat/ui`, headers });

    it("resumes useChat's answer at GET /chat/ui/{chatId}/stream (ai's reconnectToStream): from its start, the same bytes, one upstream request; 204 once it ended", async () => {
      const before = upstreamCount();
      const chat = chatId();
      const dropped = await rawRequest(`${target.baseUrl}/chat/ui`, {
        headers: auth,
        body: uiChatBody(chat, 'tokens=200;pace=10'),
        onPiece: (_text, soFar) => (uiPartCount(soFar) < 10 ? undefined : 'abort'),
      });
      expect(dropped.headers['x-vercel-ai-ui-message-stream']).toBe('v1');
      const id = String(dropped.headers['chatflux-stream-id']);
      expect(id).toMatch(STREAM_ID);
      // Two readers at once while the answer runs: the raw bytes, and ai's own transport (each part checked with ai's
      // uiMessageChunkSchema as it reads them), rebuilt by readUIMessageStream.
      const [raw, resumed] = await Promise.all([
        rawRequest(`${target.baseUrl}/chat/ui/${chat}/stream`, { headers: auth }),
        transport().reconnectToStream({ chatId: chat }),
      ]);
      expect(raw.status).toBe(200);
      expect(raw.headers['x-vercel-ai-ui-message-stream']).toBe('v1');
      expect(raw.headers['chatflux-stream-id']).toBe(id);
      expect(raw.body.startsWith(dropped.body)).toBe(true);
      expect(raw.body).toMatch(/data: \{"type":"finish-step"\}\n\ndata: \{"type":"finish"[^\n]*\n\ndata: \[DONE\]\n\n$/);
      expect(resumed).not.toBeNull();
      const answer = await uiAnswerOf(resumed!);
      expect(answer.parts[0]).toBe('start');
      expect(answer.parts.at(-1)).toBe('finish');
      expect(answer.parts.filter((type) => type === 'start')).toHaveLength(1);
      const texts = [...raw.body.matchAll(/"type":"text-delta","id":"[^"]*","delta":("(?:[^"\\]|\\.)*")/g)].map((match) => JSON.parse(match[1]!) as string);
      expect(answer.text).toBe(texts.join(''));
      expect(answer.text.length).toBeGreaterThan(0);
      expect(upstreamCount() - before).toBe(1);
      // Ended: nothing to resume (a page that keeps its messages would otherwise show the answer twice).
      await expect(transport().reconnectToStream({ chatId: chat })).resolves.toBeNull();
      expect((await rawRequest(`${target.baseUrl}/chat/ui/${chat}/stream`, { headers: auth })).status).toBe(204);
    });

    it('answers GET /chat/ui/{chatId}/stream 204 for an unknown chat, another key\'s, and one sent without `resume: true` (whose disconnect, a stop(), closes the upstream at once); 401 for a wrong key', async () => {
      const running = chatId();
      const before = upstreamCount();
      const held = new AbortController();
      const original = rawRequest(`${target.baseUrl}/chat/ui`, { headers: auth, body: uiChatBody(running, 'tokens=400;pace=20'), signal: held.signal });
      await emulator.waitForRequest((request) => request.seq > before);
      const get = (chat: string, headers: Record<string, string>) => rawRequest(`${target.baseUrl}/chat/ui/${encodeURIComponent(chat)}/stream`, { headers });
      expect((await get('no-such-chat', auth)).status).toBe(204);
      expect((await get(running, other)).status).toBe(204);
      const refused = await get(running, { Authorization: 'Bearer sk-wrong' });
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body)).toEqual({ type: 'error', errorText: expect.any(String) });
      held.abort();
      await original;

      const plain = chatId();
      await rawRequest(`${target.baseUrl}/chat/ui`, {
        headers: auth,
        body: uiChatBody(plain, 'tokens=400;pace=20', false),
        onPiece: (_text, soFar) => (uiPartCount(soFar) < 5 ? undefined : 'abort'),
      });
      const upstream = latestUpstream();
      await closedWithin(upstream, 10_000);
      expect(upstream.completed).toBe(false);
      expect((await get(plain, auth)).status).toBe(204);
    });

    it('aborts the upstream of a resumable useChat answer nobody resumes within abandonAfterMs (its stop())', async () => {
      const chat = chatId();
      await rawRequest(`${abandoning.baseUrl}/chat/ui`, {
        headers: auth,
        body: uiChatBody(chat, 'tokens=400;pace=20'),
        onPiece: (_text, soFar) => (uiPartCount(soFar) < 5 ? undefined : 'abort'),
      });
      const upstream = latestUpstream();
      await closedWithin(upstream, 10_000);
      expect(upstream.completed).toBe(false);
      expect((await rawRequest(`${abandoning.baseUrl}/chat/ui/${chat}/stream`, { headers: auth })).status).toBe(204);
    });

    it('aborts the upstream of an answer nobody reads for abandonAfterMs, and ends it as `abandoned`', async () => {
      const dropped = await rawRequest(`${abandoning.baseUrl}/chat/stream`, {
        headers: auth,
        body: ask('tokens=400;pace=20'),
        onPiece: (_text, soFar) => (cutAfterLines(soFar, 3) === undefined ? undefined : 'abort'),
      });
      const upstream = latestUpstream();
      await closedWithin(upstream, 10_000);
      expect(upstream.completed).toBe(false);
      const replay = await rawRequest(`${abandoning.baseUrl}/chat/streams/${String(dropped.headers['chatflux-stream-id'])}`, { headers: auth });
      expect(ndjsonLines(replay.body).at(-1)).toEqual({ error: { message: expect.any(String), type: 'aborted_error', code: 'abandoned' }, done: true });
    });
  });
}
