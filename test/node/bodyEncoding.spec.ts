/**
 * Bodies that do not decode as their `Content-Encoding` says, over real HTTP: the endpoint's 400 (or 415 for an
 * encoding nobody inflates) in its error format, on Express's router and on NestJS's module (with Nest's own body
 * parser in front, and without) — not a 500, not Express's HTML page.
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { startExpressRouter, startNestApp } from '../nestjs/startNestApp.js';
import { rawRequest } from '../helpers/rawRequest.js';
import { expectErrorBeforeCommit, expectJsonAnswer, type Endpoint } from '../helpers/wireAssertions.js';

const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
const REQUEST = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });

const BAD: Array<{ name: string; encoding: string; body: Buffer; status: number; code: string; message: RegExp }> = [
  { name: 'gzip that is not gzip', encoding: 'gzip', body: Buffer.from(REQUEST), status: 400, code: 'invalid_request', message: /does not decode as its Content-Encoding/ },
  { name: 'a corrupt br', encoding: 'br', body: Buffer.from('\u00ff'.repeat(64), 'latin1'), status: 400, code: 'invalid_request', message: /does not decode/ },
  { name: 'a truncated gzip', encoding: 'gzip', body: gzipSync(REQUEST).subarray(0, 20), status: 400, code: 'invalid_request', message: /does not decode/ },
  { name: 'deflate that is not deflate', encoding: 'deflate', body: Buffer.from(REQUEST), status: 400, code: 'invalid_request', message: /does not decode/ },
  { name: 'an unknown encoding', encoding: 'x-unknown', body: Buffer.from(REQUEST), status: 415, code: 'unsupported_media_type', message: /Content-Encoding is not supported/ },
];

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 3 });
});
afterAll(async () => emulator.close());

const client = () => ({ provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat', retry: false as const });

const SERVERS: Array<{ name: string; start: () => Promise<{ url: string; close(): Promise<void> }> }> = [
  { name: 'Express chatRouter', start: () => startExpressRouter({ client: client() }) },
  {
    name: 'NestJS module, Nest’s body parser',
    start: () => startNestApp({ imports: [ChatfluxModule.forRoot({ client: client(), routes: true })] }, { bodyParser: true }),
  },
  {
    name: 'NestJS module, bodyParser: false',
    start: () => startNestApp({ imports: [ChatfluxModule.forRoot({ client: client(), routes: true })] }, { bodyParser: false }),
  },
];

describe.each(SERVERS)('$name', ({ start }) => {
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => server.close());

  for (const bad of BAD) {
    it.each(ENDPOINTS)(`%s: ${bad.name} is a ${bad.status} in the endpoint's format`, async (endpoint) => {
      const res = await rawRequest(server.url + endpoint, { body: bad.body, headers: { 'Content-Type': 'application/json', 'Content-Encoding': bad.encoding } });
      expect(expectErrorBeforeCommit(res, endpoint, bad.status, bad.code).message).toMatch(bad.message);
    });
  }

  it('well-formed gzip and br bodies are still served', async () => {
    for (const [encoding, body] of [['gzip', gzipSync(REQUEST)], ['br', brotliCompressSync(REQUEST)]] as const) {
      expectJsonAnswer(await rawRequest(`${server.url}/chat/json`, { body, headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding } }));
    }
  });
});
