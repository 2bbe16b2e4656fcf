/**
 * Compressed request bodies over real HTTP, read by the serving core's one body reader: node (Express `chatRouter`)
 * inflates gzip, deflate and br with `node:zlib`, the web handlers (Hono) gzip and deflate with `DecompressionStream`;
 * both count the limit after inflating, so a gzip bomb — even one that never ends — gets its 413 as soon as the
 * inflated bytes pass the limit, while it still arrives, instead of being inflated into memory or read to its end.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { brotliCompressSync, createGzip, deflateSync, gzipSync } from 'node:zlib';
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog';
import { rawRequest } from '../helpers/rawRequest';
import { startExpressChat } from '../helpers/startExpressChat';
import { useEmulatedClient } from '../helpers/useEmulatedClient';
import { expectErrorBeforeCommit, expectJsonAnswer } from '../helpers/wireAssertions';
import { startHonoChat } from '../web/startHonoChat';

const upstream = useEmulatedClient();
const REQUEST = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });
const BODY_TIMEOUT_MS = 20_000;

interface Served {
  url: string;
  logs: ChatRequestLog[];
  close(): Promise<void>;
}

/** The options a test adds to the server's (the client, no heartbeat, a 20 s body deadline). */
type Extra = { log?: (entry: ChatRequestLog) => void; bodyLimit?: string };

const SERVERS: Array<{ name: string; codings: string[]; start: (extra: Extra) => Promise<{ url: string; close(): Promise<void> }> }> = [
  {
    name: 'node (Express chatRouter, node:zlib)',
    codings: ['gzip', 'x-gzip', 'deflate', 'br'],
    start: (extra) => startExpressChat({ client: upstream.client, heartbeatMs: 0, bodyTimeoutMs: BODY_TIMEOUT_MS, ...extra }),
  },
  {
    name: 'web (Hono, DecompressionStream)',
    codings: ['gzip', 'x-gzip', 'deflate'],
    start: (extra) => startHonoChat({ client: upstream.client, heartbeatMs: 0, bodyTimeoutMs: BODY_TIMEOUT_MS, ...extra }),
  },
];

const compress: Record<string, (text: string) => Buffer> = {
  gzip: (text) => gzipSync(text),
  'x-gzip': (text) => gzipSync(text),
  deflate: (text) => deflateSync(text),
  br: (text) => brotliCompressSync(text),
};

/**
 * POSTs `{"messages":[{"role":"user","content":"xxxx…`, gzipped or as it is, endlessly (chunked, no Content-Length), until the
 * response arrives or `maxMs` passes (bounded; then it rejects). The body never ends: a response is one the server
 * sent while it still arrived.
 */
function endlessBody(url: string, coding: 'gzip' | 'identity', maxMs = 15_000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const headers = { 'Content-Type': 'application/json', ...(coding === 'gzip' ? { 'Content-Encoding': 'gzip' } : {}) };
    const req = httpRequest(`${url}/chat/json`, { method: 'POST', headers });
    const gzip = coding === 'gzip' ? createGzip() : new PassThrough();
    gzip.on('data', (chunk: Buffer) => {
      if (!req.write(chunk)) gzip.pause();
    });
    req.on('drain', () => gzip.resume());
    const stop = setTimeout(() => req.destroy(new Error(`no response within ${maxMs} ms`)), maxMs);
    req.on('response', (res: IncomingMessage) => {
      responded = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => (body += text));
      res.on('end', () => {
        clearTimeout(stop);
        gzip.destroy();
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', (error) => {
      clearTimeout(stop);
      gzip.destroy();
      if (!responded) reject(error);
    });
    gzip.write('{"messages":[{"role":"user","content":"');
    const xs = Buffer.alloc(64 * 1024, 'x');
    const feed = (): void => {
      // the gzip stream's own backpressure paces the feed: it writes while the socket takes the compressed bytes
      while (!responded && !gzip.destroyed && gzip.write(xs));
      if (!responded && !gzip.destroyed) gzip.once('drain', feed);
    };
    feed();
  });
}

describe.each(SERVERS)('$name', ({ start, codings }) => {
  let served: Served;
  beforeAll(async () => {
    const logs: ChatRequestLog[] = [];
    served = { ...(await start({ log: (entry) => logs.push(entry) })), logs };
  });
  afterAll(async () => served.close());

  it.each(codings)('a %s body is inflated and served', async (coding) => {
    const body = compress[coding]?.(REQUEST);
    expectJsonAnswer(await rawRequest(`${served.url}/chat/json`, { body, headers: { 'Content-Type': 'application/json', 'Content-Encoding': coding } }));
  });

  it('the limit counts inflated bytes: a body of 4 KiB gzipped into a few dozen bytes is a 413 under bodyLimit 2kb', async () => {
    const small = await start({ bodyLimit: '2kb' });
    try {
      const body = gzipSync(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(4096) }] }));
      expect(body.byteLength).toBeLessThan(2048);
      const res = await rawRequest(`${small.url}/chat/json`, { body, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } });
      expect(expectErrorBeforeCommit(res, '/chat/json', 413, 'payload_too_large').message).toBe('the request body is larger than the limit of 2048 bytes');
    } finally {
      await small.close();
    }
  });

  it('a gzip bomb that never ends gets its 413 while it still arrives (not a 408 at the deadline, not an OOM)', async () => {
    const before = served.logs.length;
    const res = await endlessBody(served.url, 'gzip');
    expect(res.status).toBe(413);
    expect(res.body).toContain('"code":"payload_too_large"');
    expect(served.logs.slice(before)).toEqual([expect.objectContaining({ status: 413 })]);
    // and the server serves the next request
    expectJsonAnswer(await rawRequest(`${served.url}/chat/json`, { body: REQUEST }));
  });

  it('an endless plain body (chunked, no Content-Length) gets its 413 at the limit, on a connection still open to carry it', async () => {
    const res = await endlessBody(served.url, 'identity');
    expect(res.status).toBe(413);
    expect(res.body).toContain('"code":"payload_too_large"');
    expectJsonAnswer(await rawRequest(`${served.url}/chat/json`, { body: REQUEST }));
  });

  it('a client that goes away mid-body ends its request at once (disconnected), not at the deadline', async () => {
    const before = served.logs.length;
    const req = httpRequest(`${served.url}/chat/json`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': '5000' } });
    req.on('error', () => undefined);
    req.write('{"messages":[');
    await new Promise((resolve) => setTimeout(resolve, 200));
    req.destroy();
    const started = performance.now();
    while (served.logs.length === before && performance.now() - started < BODY_TIMEOUT_MS + 5000) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(served.logs.slice(before)).toEqual([expect.objectContaining({ result: 'disconnected' })]);
    expect(performance.now() - started).toBeLessThan(BODY_TIMEOUT_MS);
  }, BODY_TIMEOUT_MS + 10_000);
});

describe('node only', () => {
  let served: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    served = await startExpressChat({ client: upstream.client, heartbeatMs: 0 });
  });
  afterAll(async () => served.close());

  it('a br body over the limit once inflated is a 413 naming the limit', async () => {
    const body = brotliCompressSync(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] }));
    const res = await rawRequest(`${served.url}/chat/json`, { body, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'br' } });
    expect(expectErrorBeforeCommit(res, '/chat/json', 413, 'payload_too_large').message).toBe('the request body is larger than the limit of 1048576 bytes');
  });
});
