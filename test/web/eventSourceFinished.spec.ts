/**
 * The web handlers' `GET /chat/sse` tells a finished `EventSource` not to reconnect, as the node core does (the Express
 * router, started beside them with the same options, is the reference): the same final frame, the same 204 for a
 * reconnect naming it, read by the `eventsource` npm package.
 */
import { rawRequest } from '../helpers/rawRequest';
import { startExpressChat } from '../helpers/startExpressChat';
import { startRetryStrippingProxy } from '../helpers/startRetryStrippingProxy';
import { waitFor } from '../helpers/streamSources';
import {
  EVENT_SOURCE_HELLO as HELLO,
  EVENT_SOURCE_Q as Q,
  EVENT_SOURCE_WINDOW_MS as WINDOW_MS,
  gotDone,
  useEventSourceSuite,
} from '../helpers/useEventSourceSuite';
import { visibleResponse as visible } from '../helpers/visibleResponse';
import { EVENT_SOURCE_DONE, expectEventSourceAnswer, expectSseAnswer } from '../helpers/wireAssertions';
import { startHonoChat } from './startHonoChat';

const { upstream, logs, closeAfter, open, upstreamCalls } = useEventSourceSuite();

const serve = async (): Promise<{ web: string; router: string }> => {
  const options = { client: upstream.client, heartbeatMs: 0 };
  const web = closeAfter(await startHonoChat({ ...options, log: (entry) => logs.push(entry) }));
  const router = closeAfter(await startExpressChat(options));
  return { web: web.url, router: router.url };
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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
    const proxy = closeAfter(await startRetryStrippingProxy(urls.web));
    const before = upstreamCalls();
    const direct = open(`${urls.web}/chat/sse?q=${Q}`);
    const viaProxy = open(`${proxy.url}/chat/sse?q=${Q}`);
    await waitFor(() => gotDone(direct) && gotDone(viaProxy) && viaProxy.source.readyState === viaProxy.source.CLOSED, 20_000);
    expect(viaProxy.errors.at(-1)).toBe(204);
    await sleep(WINDOW_MS);
    expect(upstreamCalls()).toBe(before + 2); // one answer each, never replayed
    expect(proxy.proxied.map((request) => [request.headers['last-event-id'], request.status])).toEqual([
      [undefined, 200],
      ['done', 204],
    ]);
    expect(direct.source.readyState).toBe(direct.source.CONNECTING); // waiting a day to come back (then: 204)
    expect(logs.map((entry) => entry.status)).toEqual([200, 200, 204]);
  }, 40_000);
});
