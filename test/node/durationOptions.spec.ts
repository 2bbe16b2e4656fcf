/**
 * The serving core's durations (`bodyTimeoutMs`, `writeStallTimeoutMs`, `heartbeatMs`) and `queryLimit`. `Infinity`
 * reads as "never", but Node fires a timer of `Infinity` (or of more than 2^31 - 1 ms) after 1 ms: every body slower
 * than 1 ms got a 408, a client pausing 1 ms was cut as stalled, the heartbeat spun a 1 ms timer. Such a value now
 * means none, as `0`; a negative or NaN one is a ConfigError at creation, not a protection silently gone.
 */
import { ConfigError } from '../../src/core/errors';
import { createChatEndpoints } from '../../src/node/createChatEndpoints';
import { createChatHandlers } from '../../src/web/createChatHandlers';
import type { RawResponse } from '../helpers/rawRequest';
import { slowPost } from '../helpers/slowPost';
import { startServer, type TestServer } from '../helpers/startServer';
import { useEmulatedClient } from '../helpers/useEmulatedClient';

const upstream = useEmulatedClient();
let server: TestServer | undefined;
const warnings: string[] = [];
const onWarning = (warning: Error): void => void warnings.push(warning.name);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  await server?.close();
  server = undefined;
});

/** POST `body` in two halves, 100 ms apart. */
const twoPieces = (url: string, body: string): Promise<RawResponse> =>
  slowPost(url, [body.slice(0, 10), body.slice(10)], { gapMs: 100, firstGapMs: 0 });

const HELLO = JSON.stringify({ model: 'deepseek-chat#queue=150', messages: [{ role: 'user', content: 'hi' }] });

describe('duration options of the serving core', () => {
  it('Infinity means none: a body in two pieces is read, no 1 ms timer is set', async () => {
    const endpoints = createChatEndpoints({ client: upstream.client, bodyTimeoutMs: Infinity, writeStallTimeoutMs: Infinity, heartbeatMs: Infinity });
    server = await startServer((req, res) => void endpoints.post('sse', req, res));
    const res = await twoPieces(`${server.url}/chat/sse`, HELLO);
    expect(res.status).toBe(200);
    expect(res.body.startsWith('data: {')).toBe(true); // no heartbeat
    expect(res.body.endsWith('data: [DONE]\n\n')).toBe(true);
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  it.each([
    [{ bodyTimeoutMs: -1 }, /bodyTimeoutMs/],
    [{ writeStallTimeoutMs: Number.NaN }, /writeStallTimeoutMs/],
    [{ heartbeatMs: -5 }, /heartbeatMs/],
    [{ queryLimit: Number.NaN }, /queryLimit/],
  ])('refuses %p with a ConfigError naming it (node core and web handlers)', (options, name) => {
    expect(() => createChatEndpoints({ client: upstream.client, ...options })).toThrow(ConfigError);
    expect(() => createChatEndpoints({ client: upstream.client, ...options })).toThrow(name);
    expect(() => createChatHandlers({ client: upstream.client, ...options })).toThrow(name);
  });
});
