import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { presetRequestFields } from '../src/presetRequestFields';

/** What an Express route sees of its request and response, and which own fields Express added after ours. */
interface Seen {
  addedToRequest: string[];
  addedToResponse: string[];
  statusCode: number;
  statusMessage: unknown;
  eventsCount: unknown;
  body: unknown;
  params: unknown;
}

const keysOf = (value: object): string[] => Reflect.ownKeys(value).map(String);

describe('presetRequestFields', () => {
  let server: Server;
  let url: string;
  let seen: Seen | undefined;
  let preset = true;

  beforeAll(async () => {
    const app = express();
    app.use((_req, _res, next) => next());
    app.post('/chat/:wire', (req, res) => {
      seen = {
        addedToRequest: keysOf(req).filter((key) => !before.request.includes(key)),
        addedToResponse: keysOf(res).filter((key) => !before.response.includes(key)),
        statusCode: res.statusCode,
        statusMessage: res.statusMessage,
        eventsCount: (req as unknown as { _eventsCount: unknown })._eventsCount,
        body: (req as { body?: unknown }).body,
        params: req.params,
      };
      res.status(201).end('ok');
    });
    let before = { request: [] as string[], response: [] as string[] };
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (preset) presetRequestFields(req, res);
      before = { request: keysOf(req), response: keysOf(res) };
      app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(`${url}/chat/sse`, { method: 'POST', agent: false, timeout: 5000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.end();
    });

  it('gives a request and its response every own field Express and its router add, up front', async () => {
    preset = true;
    expect(await post()).toBe(201);
    expect(seen?.addedToRequest).toEqual([]);
    expect(seen?.addedToResponse).toEqual([]);
  });

  it('changes nothing Express or the route reads', async () => {
    preset = false;
    expect(await post()).toBe(201);
    const without = seen!;
    expect(without.addedToRequest.length).toBeGreaterThan(0); // what the preset spares: Express adds fields late
    preset = true;
    expect(await post()).toBe(201);
    const { addedToRequest: _added, addedToResponse: _addedToo, ...withPreset } = seen!;
    const { addedToRequest: _request, addedToResponse: _response, ...plain } = without;
    expect(withPreset).toEqual(plain);
    expect(withPreset).toMatchObject({ statusCode: 200, eventsCount: 0, body: undefined, params: { wire: 'sse' } });
  });
});
