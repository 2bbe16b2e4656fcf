/**
 * `HEAD` on the chat endpoints answers without calling the upstream (a `HEAD /chat/sse` used to run a full, billed
 * completion): the gateway, and NestJS's module — the emulator's request log does not move.
 */
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { rawRequest } from '../helpers/rawRequest';
import { startNestApp, type NestTestApp } from '../nestjs/startNestApp.js';
import { AUTH, UPSTREAM_KEY, startFaultGateway, type FaultGateway } from './startFaultGateway';

const PATHS = ['/chat/sse', `/chat/sse?q=${encodeURIComponent(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }))}`, '/chat/json', '/chat/stream'];

let gw: FaultGateway;
let nest: NestTestApp;
beforeAll(async () => {
  gw = await startFaultGateway();
  nest = await startNestApp({
    imports: [
      ChatfluxModule.forRoot({
        client: { provider: 'openai-compatible', baseUrl: gw.emulator.url, apiKey: UPSTREAM_KEY, model: 'deepseek-chat', retry: false },
        routes: true,
      }),
    ],
  });
});
afterAll(async () => {
  await nest.close();
  await gw.close();
});

describe('HEAD on the chat endpoints', () => {
  it.each(PATHS)('gateway: HEAD %s calls no upstream', async (path) => {
    const before = gw.emulator.requests.length;
    const res = await rawRequest(gw.gateway.url + path, { method: 'HEAD', headers: AUTH, signal: AbortSignal.timeout(10_000) });
    expect(res.body).toBe('');
    expect([200, 404]).toContain(res.status);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a completion would have reached the emulator by now
    expect(gw.emulator.requests.length).toBe(before);
  });

  it('gateway: HEAD /chat/sse has GET’s status and headers', async () => {
    const res = await rawRequest(`${gw.gateway.url}/chat/sse`, { method: 'HEAD', headers: AUTH });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const refused = await rawRequest(`${gw.gateway.url}/chat/sse`, { method: 'HEAD' });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
  });

  it('gateway: a GET /chat/sse still streams (and reaches the upstream)', async () => {
    const before = gw.emulator.requests.length;
    const res = await rawRequest(`${gw.gateway.url}/chat/sse`, { headers: AUTH });
    expect(res.status).toBe(200);
    expect(res.body).toContain('data: [DONE]');
    expect(gw.emulator.requests.length).toBe(before + 1);
  });

  it.each(PATHS)('NestJS module: HEAD %s calls no upstream', async (path) => {
    const before = gw.emulator.requests.length;
    const res = await rawRequest(nest.url + path, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    expect(res.body).toBe('');
    expect(res.status).toBeLessThan(500);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gw.emulator.requests.length).toBe(before);
  });
});
