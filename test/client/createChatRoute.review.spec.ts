/**
 * createChatRoute against emulators on 127.0.0.1 — defects found in review: a target's `timeouts.json` and
 * `maxAnswerChars`, which a route's json() never used (a 50 ms deadline let a 500 ms answer through, a 5-character
 * cap let 59 through): refused now, not silently ignored.
 */
import { firstValueFrom } from 'rxjs';
import { createChatRoute, type ChatRoute, type ChatRouteTarget } from '../../src/client/createChatRoute';
import { ConfigError } from '../../src/core/errors';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

const REQUEST = { messages: [{ role: 'user' as const, content: '你好' }] };
let emulators: Emulator[] = [];
let routes: ChatRoute[] = [];
afterEach(async () => {
  await Promise.all(routes.map((r) => r.close()));
  await Promise.all(emulators.map((e) => e.close()));
  emulators = [];
  routes = [];
});
const emulator = async (...args: Parameters<typeof startEmulator>): Promise<Emulator> => {
  const e = await startEmulator(...args);
  emulators.push(e);
  return e;
};
const route = (config: Parameters<typeof createChatRoute>[0]): ChatRoute => {
  const r = createChatRoute(config);
  routes.push(r);
  return r;
};

describe('createChatRoute (review)', () => {
  it('refuses a target\'s timeouts.json and maxAnswerChars (the route\'s jsonTimeoutMs and maxAnswerChars apply) instead of ignoring them', async () => {
    const slow = await emulator({ dialect: 'deepseek', scenario: 'tokens=20;pace=20' });
    // What a JavaScript caller (or a spread ChatClientConfig) can pass: the types refuse it too.
    const target = (extra: object): ChatRouteTarget => ({ baseUrl: slow.url, model: 'deepseek-chat', ...extra }) as ChatRouteTarget;
    const make = (): ChatRoute => route({ targets: [target({ timeouts: { json: 50 } })] });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/jsonTimeoutMs/);
    expect(() => route({ targets: [target({}), target({ maxAnswerChars: 5 })] })).toThrow(/maxAnswerChars/);
    // The route's own deadline does apply.
    const r = route({ jsonTimeoutMs: 50, targets: [{ baseUrl: slow.url, model: 'deepseek-chat' }] });
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ code: 'timeout', phase: 'total' });
  });
});

describe('createChatRoute breakers (review)', () => {
  const ask = (content: string): { messages: { role: 'user'; content: string }[] } => ({ messages: [{ role: 'user', content }] });
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  it('a request let through while closed, abandoned while the breaker is half-open, does not free the probe: one probe at a time', async () => {
    // Each distinct body fails once with 503, then streams slowly.
    const upstream = await emulator({ dialect: 'deepseek', scenario: 'fail-first=1:503;tokens=100;pace=10' });
    const r = route({
      breaker: { consecutiveFailures: 2, coolDownMs: 50 },
      targets: [{ baseUrl: upstream.url, model: 'deepseek-chat', retry: false, name: 'p' }],
    });
    await expect(firstValueFrom(r.json(ask('a')))).rejects.toMatchObject({ status: 503 }); // failure 1
    const early = r.stream(ask('a')).subscribe({ error: () => undefined }); // let through while closed, streaming
    await expect(firstValueFrom(r.json(ask('b')))).rejects.toMatchObject({ status: 503 }); // failure 2: open
    expect(r.breakerStates()).toEqual({ p: 'open' });
    await sleep(80);
    expect(r.breakerStates()).toEqual({ p: 'half_open' });
    const probe = r.stream(ask('b')).subscribe({ error: () => undefined }); // the probe, under way
    await sleep(20);
    early.unsubscribe(); // the early request's caller leaves: neither a success nor a failure
    const third = await firstValueFrom(r.json(ask('c'))).catch((error: unknown) => error);
    probe.unsubscribe();
    expect(third).toMatchObject({ code: 'upstream_busy' }); // the probe is still under way: no second probe
    expect(upstream.requests.filter((q) => JSON.stringify(q.body).includes('"c"'))).toHaveLength(0);
  });
});

describe('createChatRoute options (review)', () => {
  const targets = [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }];

  it('refuses a bad maxContinuations, silenceMs or jsonTimeoutMs at creation, naming it (not every call failing, nor a deadline silently off)', () => {
    for (const [field, value] of [
      ['maxContinuations', -1],
      ['maxContinuations', 1.5],
      ['silenceMs', -1],
      ['silenceMs', Number.NaN],
      ['jsonTimeoutMs', -5],
      ['jsonTimeoutMs', Number.NaN],
    ] as const) {
      const make = (): ChatRoute => route({ targets, [field]: value });
      expect(make).toThrow(ConfigError);
      expect(make).toThrow(new RegExp(`createChatRoute: \`${field}\``));
    }
    expect(() => route({ targets, maxContinuations: 0, silenceMs: 0, jsonTimeoutMs: 1000 })).not.toThrow();
  });

  it('refuses a target\'s bad retry policy at creation (the route runs the retries), not at every call', () => {
    expect(() => route({ targets: [targets[0]!, { ...targets[1]!, retry: -1 }] })).toThrow(/retryOnTransient: `count` must be a non-negative integer/);
    expect(() => route({ targets: [{ ...targets[0]!, retry: { count: 1.5 } }] })).toThrow(ConfigError);
  });
});
