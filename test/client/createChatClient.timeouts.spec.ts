/**
 * The `timeouts` of createChatClient and of a route's targets — defects found in review: a deadline given as
 * `undefined` (a JavaScript caller's `{ firstChunk: options.firstChunk }`) replaced its default by no deadline at all
 * (for a route's target: its silence budget too, so a silent primary never handed over), and a negative or NaN one
 * (`Number(process.env.UNSET)`) silently turned the deadline off, or failed every call with undici's message about
 * "stray whitespace" (`headers`). An undefined deadline now takes its default; a bad one is a ConfigError at creation.
 */
import { firstValueFrom } from 'rxjs';
import { createChatClient } from '../../src/client/createChatClient';
import { createChatRoute, type ChatRoute } from '../../src/client/createChatRoute';
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

describe('timeouts (review)', () => {
  it('a route target whose timeouts are given as undefined keeps the silence budget: a silent primary hands over', async () => {
    const silent = await startEmulator({ dialect: 'deepseek', scenario: 'tokens=5;stall-after=0' });
    const healthy = await startEmulator({ dialect: 'deepseek', scenario: 'tokens=5' });
    emulators.push(silent, healthy);
    const r = createChatRoute({
      silenceMs: 100,
      jsonTimeoutMs: 3000, // bounds the test: without the fix the primary has no first-chunk deadline at all
      targets: [
        { baseUrl: silent.url, model: 'deepseek-chat', name: 'silent', timeouts: { headers: undefined, firstChunk: undefined } },
        { baseUrl: healthy.url, model: 'deepseek-chat', name: 'healthy' },
      ],
    });
    routes.push(r);
    const answer = await firstValueFrom(r.json(REQUEST));
    expect(answer.attempts?.map((a) => `${a.target}:${a.outcome}:${a.error ?? ''}`)).toEqual([
      'silent:failed:timeout:first_chunk',
      'healthy:completed:',
    ]);
  });

  it('a negative or NaN deadline is a ConfigError at creation, naming the field, not a deadline silently off', () => {
    for (const [field, value] of [['connect', -1], ['headers', -1], ['firstChunk', Number.NaN], ['idle', -5], ['total', Number.NaN], ['json', -5], ['errorBody', -1]] as const) {
      const make = (): unknown => createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeouts: { [field]: value } });
      expect(make).toThrow(ConfigError);
      expect(make).toThrow(new RegExp(`timeouts\\.${field}`));
    }
    expect(() => createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeouts: { idle: 0, json: undefined } })).not.toThrow();
  });
});
