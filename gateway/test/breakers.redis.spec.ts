/**
 * Circuit breakers shared across instances (issue #31, item 5), over real processes: two gateway programs with one
 * route `chat` (a `flaky` upstream emulator, then a healthy `backup`), sharing one redis-server (CHATFLUX_REDIS_URL).
 * A breaker opened by instance A is open on B: B sends nothing to the dead upstream. Past the cool-down one probe
 * decides for the whole gateway: a burst of requests on both instances reaches the dead upstream once (its request
 * log shows one request). Once the upstream is back, one probe closes the breaker for both.
 */
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { startProgram, stopPrograms, type SpawnedProgram } from '../../test/helpers/gatewayProgram';
import { rawRequest } from '../../test/helpers/rawRequest';
import { startRedis, type TestRedis } from '../../test/helpers/startRedis';

const COOL_DOWN_MS = 2000;
/** Longer than two reads of the store by a route (every 250 ms): what another instance takes to learn a change. */
const SPREAD_MS = 1000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Gateway = SpawnedProgram & { url: string };

describe('circuit breakers shared across gateway instances through one redis-server', () => {
  let flaky: Emulator;
  let backup: Emulator;
  let redis: TestRedis;
  let a: Gateway;
  let b: Gateway;
  const started: Gateway[] = [];

  /** One /chat/json request for the route: the target that answered it. */
  const ask = async (gateway: Gateway): Promise<string> => {
    const res = await rawRequest(`${gateway.url}/chat/json`, { body: { model: 'chat', messages: [{ role: 'user', content: 'Hello' }] } });
    expect(res.status).toBe(200);
    const answer = JSON.parse(res.body) as { attempts?: Array<{ target: string; outcome: string }> };
    return answer.attempts?.find((attempt) => attempt.outcome === 'completed')?.target ?? '(none)';
  };

  beforeAll(async () => {
    flaky = await startEmulator({ dialect: 'deepseek', seed: 5, scenario: 'status=503' });
    backup = await startEmulator({ dialect: 'deepseek', seed: 5, scenario: 'tokens=5' });
    redis = await startRedis();
    const routes = {
      chat: {
        breaker: { consecutiveFailures: 2, distinctCallers: 1, coolDownMs: COOL_DOWN_MS },
        targets: [
          { provider: 'openai-compatible', baseUrl: flaky.url, model: 'deepseek-chat', name: 'flaky', retries: 0 },
          { provider: 'openai-compatible', baseUrl: backup.url, model: 'deepseek-chat', name: 'backup', retries: 0 },
        ],
      },
    };
    const env = { CHATFLUX_ROUTES: JSON.stringify(routes), CHATFLUX_REDIS_URL: redis.url, CHATFLUX_HEARTBEAT_MS: '0', CHATFLUX_RESUMABLE: 'false' };
    [a, b] = await Promise.all([startProgram(env), startProgram(env)]);
    started.push(a, b);
  }, 60_000);
  afterAll(async () => {
    await stopPrograms(started);
    await redis?.stop();
    await flaky?.close();
    await backup?.close();
  }, 30_000);

  it('a breaker opened by A is open on B, one probe decides for both, and its success closes it for both', async () => {
    // A: two failures in a row open its breaker (each answered by the backup)
    expect(await ask(a)).toBe('backup');
    expect(await ask(a)).toBe('backup');
    expect(flaky.requests.length).toBe(2);
    await sleep(SPREAD_MS);
    // B never called the dead upstream: the breaker is open there too
    for (let i = 0; i < 3; i++) expect(await ask(b)).toBe('backup');
    expect(flaky.requests.length).toBe(2);

    // Past the cool-down: a burst on both instances sends one probe to the upstream, still dead
    await sleep(COOL_DOWN_MS);
    const burst = await Promise.all([a, b, a, b, a, b].map((gateway) => ask(gateway)));
    expect(burst).toEqual(burst.map(() => 'backup'));
    expect(flaky.requests.length).toBe(3);
    await sleep(SPREAD_MS);
    for (const gateway of [a, b]) expect(await ask(gateway)).toBe('backup'); // the failed probe opened it again for all
    expect(flaky.requests.length).toBe(3);

    // The upstream is back: past the cool-down one probe closes the breaker, on both instances
    flaky.setScenario('tokens=5');
    await sleep(COOL_DOWN_MS);
    expect(await ask(b)).toBe('flaky');
    await sleep(SPREAD_MS);
    expect(await ask(a)).toBe('flaky');
    expect(await ask(b)).toBe('flaky');
    for (const gateway of [a, b]) expect(gateway.stderr()).not.toMatch(/unreachable/);
  }, 60_000);
});
