/**
 * Secrets across faults: an upstream that echoes the keys back (in an HTTP error body, in an in-band error) must not
 * get them to the client, into an error frame, or into a log line. (The fault matrix scans all of its own traffic too.)
 */
import { rawRequest } from '../helpers/rawRequest';
import type { Endpoint } from '../helpers/wireAssertions';
import { AUTH, GATEWAY_KEYS, SECRETS, UPSTREAM_KEY, startFaultGateway, type FaultGateway } from './startFaultGateway';

const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
let gw: FaultGateway;
const captured: string[] = [];
const writes: string[] = [];
const realStdout = process.stdout.write.bind(process.stdout);
const realStderr = process.stderr.write.bind(process.stderr);

beforeAll(async () => {
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
    writes.push(String(chunk)),
    realStdout(chunk, ...rest)
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
    writes.push(String(chunk)),
    realStderr(chunk, ...rest)
  )) as typeof process.stderr.write;
  gw = await startFaultGateway({ dialect: 'openai', env: { CHATFLUX_MAX_RETRIES: '0' } });
});
afterAll(async () => {
  process.stdout.write = realStdout as typeof process.stdout.write;
  process.stderr.write = realStderr as typeof process.stderr.write;
  await gw.close();
});

// The scenarios are set as the emulator's default (not in the model name, which the gateway logs).
const ECHOES: Array<[string, string]> = [
  ['a 401 quoting the upstream key', `status=401;error-message=Incorrect API key provided: ${UPSTREAM_KEY}`],
  ['a 400 quoting the upstream key', `status=400;error-message=bad key ${UPSTREAM_KEY}`],
  [
    'a 500 quoting the Authorization header and a gateway key',
    `status=500;error-message=saw Authorization: Bearer ${UPSTREAM_KEY} for ${GATEWAY_KEYS[0]}`,
  ],
  ['a 429 quoting the key', `status=429;error-message=rate limit for key ${UPSTREAM_KEY}`],
  ['an in-band error payload quoting the key', `error-payload-at=2;error-message=key ${UPSTREAM_KEY} revoked`],
  ['an in-band error event quoting the key', `error-event-at=2;error-message=key ${UPSTREAM_KEY} revoked`],
  // A status without a documented code: the provider's `type` becomes the wire `code`, which must be redacted too.
  ['a 418 whose error.type is the key', `status=418;error-type=${UPSTREAM_KEY}`],
];

describe('an upstream echoing the keys', () => {
  it.each(ECHOES)('%s: no client body, error frame or log line carries them', async (_name, scenario) => {
    gw.emulator.setScenario(scenario);
    const logsBefore = gw.logs.length;
    for (const endpoint of ENDPOINTS) {
      const res = await rawRequest(`${gw.gateway.url}${endpoint}`, {
        headers: AUTH,
        body: { messages: [{ role: 'user', content: 'hi' }] },
        signal: AbortSignal.timeout(10_000),
      });
      expect(res.status).toBeGreaterThanOrEqual(200);
      // An error reached the client (before or after the commit), and it went through redaction.
      expect(res.body).toMatch(/"error"|event: error/);
      // The echo reached the gateway's error path and was scrubbed there (a 401 is replaced by a message of ours).
      if (!scenario.startsWith('status=401')) expect(res.body).toContain('[redacted]');
      captured.push(JSON.stringify({ headers: res.headers, body: res.body }));
    }
    gw.emulator.setScenario();
    await new Promise((resolve) => setImmediate(resolve));
    const logs = gw.logs.slice(logsBefore).map((entry) => JSON.stringify(entry));
    expect(logs.length).toBe(ENDPOINTS.length);
    for (const secret of SECRETS) expect([...captured, ...logs].filter((text) => text.includes(secret))).toEqual([]);
  });

  it('the echoing upstream really did put the key in its error bodies (the scan above is not vacuous)', () => {
    const echoed = gw.emulator.requests.filter(
      (r) => r.scenario.errorMessage?.includes(UPSTREAM_KEY) === true || r.scenario.errorType === UPSTREAM_KEY,
    );
    expect(echoed.length).toBe(ECHOES.length * ENDPOINTS.length);
  });

  it('nothing written to stdout or stderr carries them', () => {
    for (const secret of SECRETS) expect(writes.filter((text) => text.includes(secret))).toEqual([]);
  });
});
