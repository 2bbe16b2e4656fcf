/**
 * A client that goes away while the gateway is still waiting — in the upstream's keep-alive queue, before the
 * upstream's headers, during a retry's back-off, mid-answer of /chat/json — ends the upstream request at once, and
 * no further attempt is made for it.
 */
import { rawRequest } from '../helpers/rawRequest';
import type { Endpoint } from '../helpers/wireAssertions';
import type { EmulatorRequest } from '../../src/testing/startEmulator';
import { AUTH, startFaultGateway, type FaultGateway } from './startFaultGateway';

const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
let gw: FaultGateway;
let seq = 0;

beforeAll(async () => {
  gw = await startFaultGateway({
    dialect: 'openai',
    env: { CHATFLUX_MAX_RETRIES: '2', CHATFLUX_FIRST_CHUNK_TIMEOUT_MS: '20000', CHATFLUX_IDLE_TIMEOUT_MS: '20000' },
  });
});
afterAll(async () => {
  await gw.close();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** The unique message of a request (its body is parsed after the emulator first reports it). */
const tagOf = (r: EmulatorRequest): string | undefined =>
  (r.body as { messages?: Array<{ content?: string }> } | undefined)?.messages?.[0]?.content;
const attemptsOf = (tag: string): EmulatorRequest[] => gw.emulator.requests.filter((r) => tagOf(r) === tag);

/** Sends a request and disconnects once the upstream has it and `afterMs` passed; returns its tag. */
async function disconnectDuring(endpoint: Endpoint, scenario: string, afterMs: number): Promise<string> {
  seq += 1;
  const tag = `cancel ${seq} ${endpoint}`;
  const client = new AbortController();
  const done = rawRequest(`${gw.gateway.url}${endpoint}`, {
    headers: AUTH,
    body: { model: `deepseek-chat#${scenario}`, messages: [{ role: 'user', content: tag }] },
    signal: client.signal,
  });
  await gw.emulator.waitForRequest((r) => tagOf(r) === tag);
  await sleep(afterMs);
  client.abort();
  const res = await done;
  // Nothing complete was presented: either no response at all, or an unfinished one.
  expect(res.body).not.toMatch(/"done":true|\[DONE\]/);
  return tag;
}

/** Resolves true when the upstream request closed within `ms`. */
async function closedWithin(request: EmulatorRequest | undefined, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    request?.closed.then(() => true),
    new Promise<boolean>((r) => (timer = setTimeout(r, ms, false))),
  ]);
  clearTimeout(timer);
  return closed === true;
}

describe.each(ENDPOINTS)('a client disconnecting from %s', (endpoint) => {
  it('during the upstream keep-alive queue ends the upstream request', async () => {
    const tag = await disconnectDuring(endpoint, 'queue=10000;keep-alive=50', 200);
    const [upstream] = attemptsOf(tag);
    expect(await closedWithin(upstream, 2000)).toBe(true);
    expect(upstream?.closedEarly).toBe(true);
  });

  it('before the upstream sent its headers ends the upstream request', async () => {
    const tag = await disconnectDuring(endpoint, 'headers-delay=10000', 200);
    const [upstream] = attemptsOf(tag);
    expect(await closedWithin(upstream, 2000)).toBe(true);
    expect(upstream?.closedEarly).toBe(true);
  });

  it('mid-answer of a slow upstream ends the upstream request', async () => {
    const tag = await disconnectDuring(endpoint, 'pace=50;tokens=200', 300);
    const [upstream] = attemptsOf(tag);
    expect(await closedWithin(upstream, 2000)).toBe(true);
    expect(upstream?.closedEarly).toBe(true);
    expect(upstream?.completed).toBe(false);
  });
});

it('a client disconnecting during a retry back-off stops the retries (every endpoint)', async () => {
  // 503 with Retry-After: 2 → the gateway waits 2 s before its next attempt; the client leaves after 300 ms.
  const tags = await Promise.all(
    ENDPOINTS.map((endpoint) => disconnectDuring(endpoint, 'status=503;retry-after=2', 300)),
  );
  await sleep(2600);
  for (const tag of tags) expect({ tag, attempts: attemptsOf(tag).length }).toEqual({ tag, attempts: 1 });
});
