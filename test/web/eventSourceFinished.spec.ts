/**
 * The web handlers' `GET /chat/sse` tells a finished `EventSource` not to reconnect, as the node core does (the Express
 * router, started beside them with the same options, is the reference): the same final frame, the same 204 for a
 * reconnect naming it, read by the `eventsource` npm package.
 */
import { EventSource } from 'eventsource';
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog';
import { rawRequest } from '../helpers/rawRequest';
import { startExpressChat } from '../helpers/startExpressChat';
import { startRetryStrippingProxy, type RetryStrippingProxy } from '../helpers/startRetryStrippingProxy';
import type { TestServer } from '../helpers/startServer';
import { waitFor } from '../helpers/streamSources';
import { useEmulatedClient } from '../helpers/useEmulatedClient';
import { visibleResponse as visible } from '../helpers/visibleResponse';
import { EVENT_SOURCE_DONE, expectEventSourceAnswer, expectSseAnswer } from '../helpers/wireAssertions';
import { startHonoChat, type HonoChat } from './startHonoChat';

const HELLO = { messages: [{ role: 'user', content: 'hi' }] };
const Q = encodeURIComponent(JSON.stringify(HELLO));
/** Longer than two of an EventSource's default reconnect delays (3 s): a reconnect would have happened in it. */
const WINDOW_MS = 8000;

const upstream = useEmulatedClient();
let web: HonoChat | undefined;
let router: TestServer | undefined;
let proxy: RetryStrippingProxy | undefined;
const logs: ChatRequestLog[] = [];
const sources: EventSource[] = [];
afterEach(async () => {
  for (const source of sources.splice(0)) source.close();
  await proxy?.close();
  await web?.close();
  await router?.close();
  proxy = web = router = undefined;
  logs.length = 0;
});

const serve = async (): Promise<{ web: string; router: string }> => {
  const options = { client: upstream.client, heartbeatMs: 0 };
  web = await startHonoChat({ ...options, log: (entry) => logs.push(entry) });
  router = await startExpressChat(options);
  return { web: web.url, router: router.url };
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const upstreamCalls = (): number => upstream.emulator.requests.length;

describe('createChatHandlers: GET /chat/sse and a finished EventSource', () => {
  it('ends with the router’s final frame (id, day-long retry, [DONE]); POST /chat/sse keeps its bytes', async () => {
    const urls = await serve();
    const [w, r] = await Promise.all([urls.web, urls.router].map((url) => rawRequest(`${url}/chat/sse?q=${Q}`)));
    expect(w!.body.endsWith(EVENT_SOURCE_DONE)).toBe(true);
    expect(visible(w!)).toEqual(visible(r!));
    const post = await rawRequest(`${urls.web}/chat/sse`, { body: HELLO });
    expect(expectEventSourceAnswer(w!)).toEqual(expectSseAnswer(post));
    // an in-band error ends with the same final frame, as the router's
    const failing = encodeURIComponent(JSON.stringify({ ...HELLO, model: 'deepseek-chat#error-event-at=2' }));
    const [we, re] = await Promise.all([urls.web, urls.router].map((url) => rawRequest(`${url}/chat/sse?q=${failing}`)));
    expect(we!.body).toMatch(/\n\nevent: error\ndata: \{[^\n]*\}\n\nid: done\nretry: 86400000\ndata: \[DONE\]\n\n$/);
    expect(visible(we!)).toEqual(visible(re!));
  });

  it('answers a reconnect naming the final frame with the router’s 204, without calling the upstream, logged once', async () => {
    const urls = await serve();
    const before = upstreamCalls();
    const [w, r] = await Promise.all([urls.web, urls.router].map((url) => rawRequest(`${url}/chat/sse?q=${Q}`, { headers: { 'Last-Event-ID': 'done' } })));
    expect(w!.status).toBe(204);
    expect(visible(w!)).toEqual(visible(r!));
    expect(upstreamCalls()).toBe(before);
    expect(logs).toEqual([expect.objectContaining({ endpoint: '/chat/sse', method: 'GET', status: 204, result: 'completed', chunks: 0, bytes: 0 })]);
  });

  it('the eventsource package: after [DONE] it does not reconnect; told no retry, its reconnect gets 204 and it stops', async () => {
    const urls = await serve();
    proxy = await startRetryStrippingProxy(urls.web);
    const before = upstreamCalls();
    const direct = new EventSource(`${urls.web}/chat/sse?q=${Q}`);
    const viaProxy = new EventSource(`${proxy.url}/chat/sse?q=${Q}`);
    sources.push(direct, viaProxy);
    const done = new Set<EventSource>();
    const codes: Array<number | undefined> = [];
    for (const source of [direct, viaProxy]) source.onmessage = (event) => void (event.data === '[DONE]' && done.add(source));
    viaProxy.addEventListener('error', (event) => codes.push((event as unknown as { code?: number }).code));
    await waitFor(() => done.size === 2 && viaProxy.readyState === viaProxy.CLOSED, 20_000);
    expect(codes.at(-1)).toBe(204);
    await sleep(WINDOW_MS);
    expect(upstreamCalls()).toBe(before + 2); // one answer each, never replayed
    expect(proxy.proxied.map((request) => [request.headers['last-event-id'], request.status])).toEqual([
      [undefined, 200],
      ['done', 204],
    ]);
    expect(direct.readyState).toBe(direct.CONNECTING); // waiting a day to come back (then: 204)
    expect(logs.map((entry) => entry.status)).toEqual([200, 200, 204]);
  }, 40_000);
});
