/**
 * The wire contract of the three chat endpoints as reusable assertions, shared by every server that serves them
 * (the Express router, the gateway, the NestJS module): each takes a {@link RawResponse} and checks status, headers
 * and the exact body framing, returning what it parsed.
 */
import { ErrorBody, LlmClientOutput, LlmClientOutputChunk } from '../../src/core/schemas/index.js';
import type { RawResponse } from './rawRequest.js';

/** The three endpoints. */
export type Endpoint = '/chat/json' | '/chat/stream' | '/chat/sse';

/** The exact Content-Type per endpoint: the spec's media type, no parameter (RFC 8259 defines no charset for JSON). */
export const CONTENT_TYPE: Record<Endpoint, string> = {
  '/chat/json': 'application/json',
  '/chat/stream': 'application/json',
  '/chat/sse': 'text/event-stream',
};

/** The SSE heartbeat comment frame. */
export const PING = ': ping\n\n';

/** Asserts the headers a committed 200 response of `endpoint` must have. */
export function expectSuccessHeaders(res: RawResponse, endpoint: Endpoint): void {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe(CONTENT_TYPE[endpoint]);
  if (endpoint === '/chat/json') {
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
    return;
  }
  expect(res.headers['cache-control']).toBe('no-cache, no-transform');
  expect(res.headers['x-accel-buffering']).toBe('no');
  expect(res.headers['connection']).toBe('keep-alive');
  expect(res.headers['transfer-encoding']).toBe('chunked');
  expect(res.headers['content-length']).toBeUndefined();
}

/** Asserts the chunk sequence rules: schema, `index` 0..n-1, exactly one `done: true`, the last. */
export function expectChunkSequence(chunks: readonly unknown[], { complete = true } = {}): LlmClientOutputChunk[] {
  const parsed = chunks.map((chunk) => LlmClientOutputChunk.parse(chunk));
  parsed.forEach((chunk, i) => {
    expect(chunk.index).toBe(i);
    expect(chunk.done).toBe(complete && i === parsed.length - 1);
  });
  if (complete) expect(parsed.length).toBeGreaterThan(0);
  return parsed;
}

/** Asserts a successful `/chat/json` response and returns its body. */
export function expectJsonAnswer(res: RawResponse): LlmClientOutput {
  expectSuccessHeaders(res, '/chat/json');
  const body: unknown = JSON.parse(res.body);
  expect(JSON.stringify(body)).toBe(res.body);
  const output = LlmClientOutput.parse(body);
  expect(output.done).toBe(true);
  return output;
}

/** Splits NDJSON text into parsed lines, asserting the framing (one compact JSON object per LF-terminated line). */
export function ndjsonLines(body: string): unknown[] {
  expect(body.endsWith('\n')).toBe(true);
  return body
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const value: unknown = JSON.parse(line);
      expect(JSON.stringify(value)).toBe(line);
      return value;
    });
}

/** Asserts a successful `/chat/stream` response and returns its chunks. */
export function expectNdjsonAnswer(res: RawResponse): LlmClientOutputChunk[] {
  expectSuccessHeaders(res, '/chat/stream');
  return expectChunkSequence(ndjsonLines(res.body));
}

/** One SSE frame of our writer: `data` lines, an optional `event`, or a comment. */
export interface SseFrame {
  event?: string;
  id?: string;
  retry?: string;
  data?: string;
  comment?: string;
}

/** Splits SSE text into frames, asserting our framing: LF only, each frame ends with a blank line. */
export function sseFrames(body: string): SseFrame[] {
  expect(body).not.toMatch(/\r/);
  expect(body.endsWith('\n\n')).toBe(true);
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((text) => {
      const frame: SseFrame = {};
      for (const line of text.split('\n')) {
        if (line.startsWith(': ')) frame.comment = line.slice(2);
        else if (line.startsWith('event: ')) frame.event = line.slice(7);
        else if (line.startsWith('id: ')) frame.id = line.slice(4);
        else if (line.startsWith('retry: ')) frame.retry = line.slice(7);
        else if (line.startsWith('data: ')) frame.data = frame.data === undefined ? line.slice(6) : `${frame.data}\n${line.slice(6)}`;
        else throw new Error(`unexpected SSE line ${JSON.stringify(line)}`);
      }
      return frame;
    });
}

/** The frames without heartbeat comments (`: ping`), which may appear between any two frames. */
const withoutPings = (frames: SseFrame[]): SseFrame[] => frames.filter((frame) => frame.comment !== 'ping' || frame.data !== undefined);

/** The final frame of `GET /chat/sse` (an `EventSource`'s): `[DONE]`, with the id and the day-long `retry:` that stop it. */
export const EVENT_SOURCE_DONE = 'id: done\nretry: 86400000\ndata: [DONE]\n\n';

/**
 * Asserts a successful `GET /chat/sse` response: `/chat/sse`'s frames (see {@link expectSseAnswer}) ended by
 * {@link EVENT_SOURCE_DONE} instead of `data: [DONE]`; returns its chunks.
 */
export function expectEventSourceAnswer(res: RawResponse): LlmClientOutputChunk[] {
  expect(res.body.endsWith(`\n\n${EVENT_SOURCE_DONE}`)).toBe(true);
  // No other id than the events' own (a resumable answer's `<stream id>:<position>`, checked by expectSseAnswer), no other retry.
  expect(res.body.replace(/^id: [A-Za-z0-9_-]+:\d+\n/gm, '').indexOf('id: ')).toBe(res.body.replace(/^id: [A-Za-z0-9_-]+:\d+\n/gm, '').length - EVENT_SOURCE_DONE.length);
  expect(res.body.indexOf('retry: ')).toBe(res.body.length - EVENT_SOURCE_DONE.length + 'id: done\n'.length);
  return expectSseAnswer({ ...res, body: `${res.body.slice(0, -EVENT_SOURCE_DONE.length)}data: [DONE]\n\n` });
}

/**
 * Asserts a successful `/chat/sse` response (chunks as `data:` frames, then `data: [DONE]`) and returns its chunks. A
 * resumable answer's (`Chatflux-Stream-Id`) frames each carry `id: <stream id>:<position>`, from 0, and nothing else.
 */
export function expectSseAnswer(res: RawResponse): LlmClientOutputChunk[] {
  expectSuccessHeaders(res, '/chat/sse');
  expect(res.body.endsWith('data: [DONE]\n\n')).toBe(true);
  const frames = withoutPings(sseFrames(res.body));
  expect(frames.at(-1)).toEqual({ data: '[DONE]' });
  const streamId = res.headers['chatflux-stream-id'];
  const chunks = frames.slice(0, -1).map((frame, position) => {
    if (streamId === undefined) expect(Object.keys(frame)).toEqual(['data']);
    else expect(frame).toEqual({ id: `${String(streamId)}:${position}`, data: frame.data });
    const value: unknown = JSON.parse(frame.data ?? '');
    expect(JSON.stringify(value)).toBe(frame.data);
    return value;
  });
  return expectChunkSequence(chunks);
}

/** The text of the chunks' `content`. */
export const contentOf = (chunks: ReadonlyArray<{ message: { content: string } }>): string => chunks.map((c) => c.message.content).join('');

/** Parses the endpoint's error format from a body that is exactly one error (nothing before it). */
export function parseErrorBody(endpoint: Endpoint, body: string): ErrorBody {
  if (endpoint === '/chat/json') {
    const parsed = JSON.parse(body) as { error: unknown };
    expect(Object.keys(parsed)).toEqual(['error']);
    return expectErrorBody(parsed.error, body, (error) => JSON.stringify({ error }));
  }
  if (endpoint === '/chat/stream') {
    const parsed = JSON.parse(body) as { error: unknown; done: unknown };
    expect(Object.keys(parsed)).toEqual(['error', 'done']);
    expect(parsed.done).toBe(true);
    return expectErrorBody(parsed.error, body, (error) => `${JSON.stringify({ error, done: true })}\n`);
  }
  const match = /^event: error\ndata: (.*)\n\ndata: \[DONE\]\n\n$/.exec(body);
  expect(match).not.toBeNull();
  return expectErrorBody(JSON.parse(match?.[1] ?? ''), body, (error) => `event: error\ndata: ${JSON.stringify(error)}\n\ndata: [DONE]\n\n`);
}

const expectErrorBody = (value: unknown, body: string, format: (error: ErrorBody) => string): ErrorBody => {
  const error = ErrorBody.strict().parse(value);
  expect(body).toBe(format(error));
  return error;
};

/**
 * Asserts an error answered before the commit: the real `status`, the endpoint's Content-Type, and a body that is
 * exactly the endpoint's error format. Returns the error body.
 */
export function expectErrorBeforeCommit(res: RawResponse, endpoint: Endpoint, status: number, code?: string): ErrorBody {
  expect({ status: res.status, body: res.body }).toMatchObject({ status });
  expect(res.headers['content-type']).toBe(CONTENT_TYPE[endpoint]);
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
  const error = parseErrorBody(endpoint, res.body);
  if (code !== undefined) expect(error.code).toBe(code);
  return error;
}

/**
 * Asserts a stream committed with 200 that ended with the in-band error (NDJSON error line; SSE `event: error` +
 * `[DONE]`) after `minChunks` or more chunks. Returns the chunks before it and the error.
 */
export function expectErrorAfterCommit(
  res: RawResponse,
  endpoint: '/chat/stream' | '/chat/sse',
  minChunks = 1,
): { chunks: LlmClientOutputChunk[]; error: ErrorBody } {
  expectSuccessHeaders(res, endpoint);
  if (endpoint === '/chat/stream') {
    const lines = res.body.slice(0, -1).split('\n');
    const last = lines.pop() ?? '';
    const error = parseErrorBody(endpoint, `${last}\n`);
    const chunks = expectChunkSequence(lines.map((line) => JSON.parse(line) as unknown), { complete: false });
    expect(chunks.length).toBeGreaterThanOrEqual(minChunks);
    return { chunks, error };
  }
  const at = res.body.lastIndexOf('event: error\n');
  expect(at).toBeGreaterThan(-1);
  const error = parseErrorBody(endpoint, res.body.slice(at));
  const frames = at === 0 ? [] : withoutPings(sseFrames(res.body.slice(0, at)));
  const chunks = expectChunkSequence(frames.map((frame) => JSON.parse(frame.data ?? '') as unknown), { complete: false });
  expect(chunks.length).toBeGreaterThanOrEqual(minChunks);
  return { chunks, error };
}
