/**
 * Bad downstream input through the real gateway: each refusal gets the right 4xx in the endpoint's error format,
 * and nothing reaches the upstream (the emulator's request count does not move).
 */
import { connect } from 'node:net';
import { rawRequest, type RawResponse } from '../helpers/rawRequest';
import { expectErrorBeforeCommit, type Endpoint } from '../helpers/wireAssertions';
import { AUTH, GATEWAY_KEYS, SECRETS, startFaultGateway, type FaultGateway } from './startFaultGateway';

const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
const HELLO = { messages: [{ role: 'user', content: 'hi' }] };

let gw: FaultGateway;
const bodies: string[] = [];
beforeAll(async () => {
  gw = await startFaultGateway();
});
afterAll(async () => {
  await gw.close();
});

const post = async (
  endpoint: Endpoint,
  body: unknown,
  headers: Record<string, string> = AUTH,
): Promise<RawResponse> => {
  const res = await rawRequest(`${gw.gateway.url}${endpoint}`, { headers, body, signal: AbortSignal.timeout(10_000) });
  bodies.push(JSON.stringify(res));
  return res;
};

interface BadInput {
  name: string;
  status: number;
  code: string;
  body: unknown;
  headers?: Record<string, string>;
  /** A pattern the error message must match (it names the problem). */
  message?: RegExp;
}

const CASES: BadInput[] = [
  {
    name: 'malformed JSON',
    status: 400,
    code: 'invalid_request',
    body: '{"messages": [{"role": "user", "content": "hi"}',
  },
  { name: 'a JSON array body', status: 400, code: 'invalid_request', body: '[1, 2]' },
  {
    name: 'messages of the wrong type',
    status: 400,
    code: 'invalid_request',
    body: { messages: 'hi' },
    message: /messages/,
  },
  {
    name: 'content of the wrong type',
    status: 400,
    code: 'invalid_request',
    body: { messages: [{ role: 'user', content: 5 }] },
    message: /content/,
  },
  {
    name: 'temperature of the wrong type',
    status: 400,
    code: 'invalid_request',
    body: { ...HELLO, temperature: 'hot' },
    message: /temperature/,
  },
  {
    name: 'model of the wrong type',
    status: 400,
    code: 'invalid_request',
    body: { ...HELLO, model: 42 },
    message: /model/,
  },
  { name: 'empty messages', status: 400, code: 'invalid_request', body: { messages: [] }, message: /messages/ },
  { name: 'no messages at all', status: 400, code: 'invalid_request', body: {}, message: /messages/ },
  {
    name: 'an unknown role',
    status: 400,
    code: 'invalid_request',
    body: { messages: [{ role: 'wizard', content: 'x' }] },
    message: /role/,
  },
  {
    name: 'a body over 1 MB',
    status: 413,
    code: 'payload_too_large',
    body: { messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] },
  },
  { name: 'no Authorization', status: 401, code: 'unauthorized', body: HELLO, headers: {} },
  {
    name: 'a wrong Bearer key',
    status: 401,
    code: 'unauthorized',
    body: HELLO,
    headers: { Authorization: 'Bearer wrong-key-5f8e2d1c' },
  },
  {
    name: 'a gateway key without the Bearer scheme',
    status: 401,
    code: 'unauthorized',
    body: HELLO,
    headers: { Authorization: GATEWAY_KEYS[0] },
  },
  {
    name: 'Basic credentials',
    status: 401,
    code: 'unauthorized',
    body: HELLO,
    headers: { Authorization: 'Basic Z3c6a2V5' },
  },
  {
    name: 'a text/plain body',
    status: 415,
    code: 'unsupported_media_type',
    body: JSON.stringify(HELLO),
    headers: { ...AUTH, 'Content-Type': 'text/plain' },
  },
  {
    name: 'a form body',
    status: 415,
    code: 'unsupported_media_type',
    body: 'messages=hi',
    headers: { ...AUTH, 'Content-Type': 'application/x-www-form-urlencoded' },
  },
  {
    name: 'headers over 16 KB',
    status: 431,
    code: 'headers_too_large',
    body: HELLO,
    headers: { ...AUTH, 'X-Padding': 'p'.repeat(20_000) },
  },
];

describe.each(ENDPOINTS)('bad downstream input on %s', (endpoint) => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s → the right 4xx, nothing forwarded', async (_name, c) => {
    const before = gw.emulator.requests.length;
    const res = await post(endpoint, c.body, c.headers);
    const error = expectErrorBeforeCommit(res, endpoint, c.status, c.code);
    if (c.message !== undefined) expect(error.message).toMatch(c.message);
    expect(error.message).not.toContain('[redacted]');
    if (c.status === 401) expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(gw.emulator.requests.length).toBe(before);
  });
});

describe('bad downstream input, beyond the endpoints', () => {
  it('a request line the HTTP parser refuses gets a 400 JSON error and a closed connection', async () => {
    const before = gw.emulator.requests.length;
    const { port } = new URL(gw.gateway.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.end('POST /chat/json HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n'),
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (part: string) => (text += part));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw).toMatch(/\r\nConnection: close\r\n/);
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toEqual({
      error: { message: 'malformed HTTP request', type: 'invalid_request_error', code: 'invalid_request' },
    });
    expect(gw.emulator.requests.length).toBe(before);
  });

  it('GET /chat/sse with a bad q is refused the same way, nothing forwarded', async () => {
    const before = gw.emulator.requests.length;
    const q = (value: string): Promise<RawResponse> =>
      rawRequest(`${gw.gateway.url}/chat/sse?q=${encodeURIComponent(value)}`, {
        headers: AUTH,
        signal: AbortSignal.timeout(10_000),
      });
    expectErrorBeforeCommit(await q('{"messages": ['), '/chat/sse', 400, 'invalid_request');
    expectErrorBeforeCommit(await q(JSON.stringify({ messages: [] })), '/chat/sse', 400, 'invalid_request');
    expectErrorBeforeCommit(
      await q(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(9000) }] })),
      '/chat/sse',
      413,
      'payload_too_large',
    );
    const open = await rawRequest(`${gw.gateway.url}/chat/sse?q=${encodeURIComponent(JSON.stringify(HELLO))}`, {
      signal: AbortSignal.timeout(10_000),
    });
    expectErrorBeforeCommit(open, '/chat/sse', 401, 'unauthorized');
    expect(gw.emulator.requests.length).toBe(before);
  });

  it('no refusal and no log line echoes a key', () => {
    const logs = gw.logs.map((entry) => JSON.stringify(entry));
    expect(bodies.length).toBe(ENDPOINTS.length * CASES.length);
    for (const secret of [...SECRETS, 'wrong-key-5f8e2d1c']) {
      expect(
        [...bodies.map((b) => JSON.stringify(JSON.parse(b).body)), ...logs].filter((text) => text.includes(secret)),
      ).toEqual([]);
    }
  });
});
