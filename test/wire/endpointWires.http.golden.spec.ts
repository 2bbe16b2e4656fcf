/**
 * The golden files of `endpointWires.golden.spec.ts`, through the HTTP side this time: each recorded provider stream
 * is served by a loopback upstream, and the bytes that `POST /chat/json`, `/chat/stream` and `/chat/sse` put on the
 * wire (heartbeats off) must equal `test/fixtures/golden/<name>.{json,ndjson,sse}` — for the Express router and for
 * the NestJS module, which share the serving core and the writers (`CHAT_WIRES`).
 *
 * The operators (`toSse`, `toNdjson`) and the writers (`sendSse`, `sendNdjson`, `sendJson`) thus answer to the same
 * files: one formatter per wire, proven byte for byte.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { chatRouter } from '../../src/express/chatRouter';
import { CHAT_WIRES } from '../../src/node/CHAT_WIRES';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { JSON_WIRE } from '../../src/wire/JSON_WIRE';
import { NDJSON_WIRE } from '../../src/wire/NDJSON_WIRE';
import { SSE_WIRE } from '../../src/wire/SSE_WIRE';
import { FIXTURE_NAMES, readFixture, type FixtureName } from '../helpers/readFixture';
import { rawRequest } from '../helpers/rawRequest';
import { startServer, type TestServer } from '../helpers/startServer';
import { startNestApp } from '../nestjs/startNestApp';

const GOLDEN = join(__dirname, '..', 'fixtures', 'golden');
const EXTENSION = { '/chat/json': 'json', '/chat/stream': 'ndjson', '/chat/sse': 'sse' } as const;
/** Long and unlike any fixture text: the client redacts its key from in-band error messages. */
const UPSTREAM_KEY = 'sk-golden-over-http-0123456789abcdef';

interface Target {
  url: string;
  close(): Promise<void>;
}

/** The upstream: answers `POST /chat/completions` with the fixture the request's `model` names, as the provider sent it. */
const startFixtureUpstream = (): Promise<TestServer> =>
  startServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => (body += part));
    req.on('end', () => {
      const name = (JSON.parse(body) as { model: FixtureName }).model;
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      res.end(readFixture(name));
    });
  });

const TARGETS: Record<string, (client: ChatClient) => Promise<Target>> = {
  'Express chatRouter': async (client) => {
    const app = express();
    app.use(chatRouter({ client, heartbeatMs: 0 }));
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  },
  'NestJS ChatfluxModule': async (client) => {
    const nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, heartbeatMs: 0 })] }, { bodyParser: false });
    return { url: nest.url, close: () => nest.close() };
  },
};

describe.each(Object.keys(TARGETS))('endpoint wires over HTTP (golden): %s', (targetName) => {
  let upstream: TestServer;
  let client: ChatClient;
  let target: Target;
  beforeAll(async () => {
    upstream = await startFixtureUpstream();
    client = createChatClient({ baseUrl: upstream.url, apiKey: UPSTREAM_KEY, retry: false });
    target = await TARGETS[targetName]!(client);
  });
  afterAll(async () => {
    await target.close();
    await client.close();
    await upstream.close();
  });

  it.each(FIXTURE_NAMES)('%s: the bytes of the three endpoints are the golden files', async (name) => {
    for (const endpoint of ['/chat/json', '/chat/stream', '/chat/sse'] as const) {
      const res = await rawRequest(target.url + endpoint, { body: { model: name, messages: [{ role: 'user', content: 'hi' }] } });
      expect({ endpoint, body: res.body }).toEqual({ endpoint, body: readFileSync(join(GOLDEN, `${name}.${EXTENSION[endpoint]}`), 'utf8') });
    }
  });
});

describe('one formatter per wire', () => {
  it('the wire → writer table writes with the formatters of the operators', () => {
    expect(CHAT_WIRES.json.format).toBe(JSON_WIRE);
    expect(CHAT_WIRES.ndjson.format).toBe(NDJSON_WIRE);
    expect(CHAT_WIRES.sse.format).toBe(SSE_WIRE);
  });
});
