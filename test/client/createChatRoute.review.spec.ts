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
