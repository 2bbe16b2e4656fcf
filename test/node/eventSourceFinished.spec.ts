/**
 * `GET /chat/sse` tells a finished `EventSource` not to reconnect: an `EventSource` left open after `[DONE]` used to
 * reconnect every ~3 s and have the whole request answered again (an upstream call each time). The final frame now
 * carries a day-long `retry:` and an `id:`; a reconnect naming that id gets 204, which stops an `EventSource` (WHATWG
 * HTML §9.2.3). Served by the node core through the Express router, read by the `eventsource` npm package.
 */
import type { ChatRouterConfig } from '../../src/express/chatRouter';
import { fetchSseToken } from '../helpers/fetchSseToken';
import { rawRequest } from '../helpers/rawRequest';
import { startExpressChat } from '../helpers/startExpressChat';
import { startRetryStrippingProxy } from '../helpers/startRetryStrippingProxy';
import type { TestServer } from '../helpers/startServer';
import { waitFor } from '../helpers/streamSources';
import {
  EVENT_SOURCE_HELLO as HELLO,
  EVENT_SOURCE_Q as Q,
  EVENT_SOURCE_WINDOW_MS as WINDOW_MS,
  gotDone,
  useEventSourceSuite,
} from '../helpers/useEventSourceSuite';
import { EVENT_SOURCE_DONE, expectEventSourceAnswer, expectSseAnswer } from '../helpers/wireAssertions';

const KEY = 'event-source-suite-key-0123456789';

const { upstream, logs, closeAfter, open, upstreamCalls } = useEventSourceSuite();
let server: TestServer | undefined;

const serve = async (config: Partial<ChatRouterConfig> = {}): Promise<string> => {
  server = closeAfter(await startExpressChat({ client: upstream.client, heartbeatMs: 0, log: (entry) => logs.push(entry), ...config }));
  return server.url;
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /chat/sse and a finished EventSource', () => {
  it('ends with [DONE] carrying an id and a day-long retry; POST /chat/sse keeps its bytes', async () => {
    const url = await serve();
    const get = await rawRequest(`${url}/chat/sse?q=${Q}`);
    const post = await rawRequest(`${url}/chat/sse`, { body: HELLO });
    expect(get.body.endsWith(EVENT_SOURCE_DONE)).toBe(true);
    expect(expectEventSourceAnswer(get)).toEqual(expectSseAnswer(post));
    expect(post.body).not.toMatch(/^(id|retry):/m);
  });

  it('ends an in-band error with the same final frame (an errored answer is not replayed either)', async () => {
    const url = await serve();
    const model = encodeURIComponent(JSON.stringify({ ...HELLO, model: 'deepseek-chat#error-event-at=2' }));
    const get = await rawRequest(`${url}/chat/sse?q=${model}`);
    expect(get.status).toBe(200);
    expect(get.body).toMatch(new RegExp(`\\n\\nevent: error\\ndata: \\{[^\\n]*\\}\\n\\n${EVENT_SOURCE_DONE.replace(/[[\]]/g, '\\$&')}$`));
    // A refusal before the commit is GET's as before: its status already stops an EventSource.
    const refused = await rawRequest(`${url}/chat/sse?q=%7B`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/^event: error\ndata: \{[^\n]*\}\n\ndata: \[DONE\]\n\n$/);
  });

  it('answers a reconnect naming the final frame with 204: no key asked, no upstream call, one log entry', async () => {
    const url = await serve({ apiKeys: [KEY] });
    const before = upstreamCalls();
    for (const method of ['GET', 'HEAD']) {
      const res = await rawRequest(`${url}/chat/sse?q=${Q}`, { method, headers: { 'Last-Event-ID': 'done' } });
      expect([method, res.status, res.body]).toEqual([method, 204, '']);
    }
    expect(upstreamCalls()).toBe(before);
    expect(logs).toEqual([
      expect.objectContaining({ endpoint: '/chat/sse', method: 'GET', status: 204, result: 'completed', chunks: 0, bytes: 0 }),
      expect.objectContaining({ endpoint: '/chat/sse', method: 'HEAD', status: 204, result: 'completed' }),
    ]);
    // Any other Last-Event-ID is a request like any other: checked, then served (nothing is kept of it).
    expect((await rawRequest(`${url}/chat/sse?q=${Q}`, { headers: { 'Last-Event-ID': 'done2' } })).status).toBe(401);
    const other = await rawRequest(`${url}/chat/sse?q=${Q}`, { headers: { 'Last-Event-ID': 'x'.repeat(200), Authorization: `Bearer ${KEY}` } });
    expectEventSourceAnswer(other);
    expect(upstreamCalls()).toBe(before + 1);
  });

  it('the eventsource package: after [DONE] it does not reconnect, and the upstream saw one request', async () => {
    const url = await serve();
    const before = upstreamCalls();
    const seen = open(`${url}/chat/sse?q=${Q}`);
    await waitFor(() => gotDone(seen), 15_000);
    await sleep(WINDOW_MS);
    expect(upstreamCalls()).toBe(before + 1);
    expect(server?.requests.filter((req) => req.url?.startsWith('/chat/sse'))).toHaveLength(1);
    expect(seen.messages.filter((message) => message.data === '[DONE]')).toHaveLength(1);
    expect(logs).toHaveLength(1);
    expect(seen.messages.at(-1)).toEqual({ data: '[DONE]', lastEventId: 'done' });
    expect(seen.source.readyState).toBe(seen.source.CONNECTING); // waiting a day to come back (then: 204)
  }, 30_000);

  it('the eventsource package, told no retry (a proxy drops it): its reconnect gets 204 and it stops', async () => {
    const url = await serve({ apiKeys: [KEY] });
    const proxy = closeAfter(await startRetryStrippingProxy(url));
    const { token } = await fetchSseToken(url, KEY);
    const before = upstreamCalls();
    const seen = open(`${proxy.url}/chat/sse?q=${Q}&token=${encodeURIComponent(token)}`);
    await waitFor(() => seen.source.readyState === seen.source.CLOSED, 20_000);
    expect(gotDone(seen)).toBe(true);
    expect(seen.errors.at(-1)).toBe(204);
    const gets = proxy.proxied.filter((request) => request.url.startsWith('/chat/sse'));
    expect(gets.map((request) => [request.headers['last-event-id'], request.status])).toEqual([
      [undefined, 200],
      ['done', 204],
    ]);
    await sleep(WINDOW_MS);
    expect(upstreamCalls()).toBe(before + 1);
    expect(proxy.proxied.filter((request) => request.url.startsWith('/chat/sse'))).toHaveLength(2);
  }, 40_000);
});
