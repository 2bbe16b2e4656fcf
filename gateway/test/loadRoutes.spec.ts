import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors';
import { describeGatewayConfig } from '../src/describeGatewayConfig';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { loadRoutes } from '../src/loadRoutes';

const ROUTES = {
  chat: {
    targets: [
      { provider: 'deepseek', apiKeyEnv: 'DS_KEY_2', retries: 1, timeouts: { firstChunk: 20000 } },
      { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', prefill: 'assistant', contextWindow: 131072 },
    ],
    breaker: { consecutiveFailures: 3, coolDownMs: 10000 },
  },
};

const dirs: string[] = [];
/** A routes file holding `text` (removed after the suite). */
const routesFile = (text: string): string => {
  const dir = mkdtempSync(join(tmpdir(), 'routes-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'routes.json'), text);
  return join(dir, 'routes.json');
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('loadRoutes (CHATFLUX_ROUTES / CHATFLUX_ROUTES_FILE)', () => {
  it('reads a request budget (maxAttempts, deadlineMs, cutDeadlineMs), the breaker\'s distinctCallers and a target\'s silence; refuses them out of range', () => {
    const routes = {
      chat: {
        targets: [{ provider: 'deepseek', timeouts: { silence: 10_000 } }],
        maxAttempts: 4,
        deadlineMs: 30_000,
        cutDeadlineMs: 20_000,
        breaker: { distinctCallers: 3 },
      },
    };
    expect(loadRoutes({ CHATFLUX_ROUTES: JSON.stringify(routes) })).toEqual(routes);
    for (const bad of [{ maxAttempts: 0 }, { maxAttempts: 51 }, { deadlineMs: -1 }, { cutDeadlineMs: -1 }, { breaker: { distinctCallers: 0 } }]) {
      expect(() => loadRoutes({ CHATFLUX_ROUTES: JSON.stringify({ chat: { ...routes.chat, ...bad } }) })).toThrow(ConfigError);
    }
  });

  it('reads the JSON from the variable or a file, and the keys from the variables named (never printed)', () => {
    const env = { CHATFLUX_ROUTES: JSON.stringify(ROUTES), DS_KEY_2: 'sk-secret-2' };
    expect(loadRoutes(env)).toEqual(ROUTES);
    const dir = mkdtempSync(join(tmpdir(), 'routes-'));
    writeFileSync(join(dir, 'routes.json'), JSON.stringify(ROUTES));
    expect(loadRoutes({ CHATFLUX_ROUTES_FILE: join(dir, 'routes.json'), DS_KEY_2: 'k' })).toEqual(ROUTES);
    const config = loadGatewayConfig(env);
    expect(config.routeKeys).toEqual({ DS_KEY_2: 'sk-secret-2' });
    const lines = describeGatewayConfig(config).join('\n');
    expect(lines).toContain('route:        chat → deepseek:default → openai-compatible:m');
    expect(lines).not.toContain('sk-secret-2');
    expect(loadRoutes({})).toBeUndefined();
  });

  it.each([
    [{ CHATFLUX_ROUTES: '{"chat":' }, /CHATFLUX_ROUTES is not valid JSON/],
    [{ CHATFLUX_ROUTES: '{"chat":{"targets":[]}}' }, /chat\.targets: /],
    [{ CHATFLUX_ROUTES: '{"chat":{"targets":[{"provider":"deepseek","retry":1}]}}' }, /chat\.targets\.0: .*retry/],
    [{ CHATFLUX_ROUTES: '{"chat":{"targets":[{"provider":"nope"}]}}' }, /chat\.targets\.0\.provider/],
    [{ CHATFLUX_ROUTES: '{"chat":{"targets":[{"model":"m"}]}}' }, /chat\.targets\.0 needs a baseUrl/],
    [{ CHATFLUX_ROUTES: '{"chat":{"targets":[{"provider":"deepseek","apiKeyEnv":"MISSING_KEY"}]}}' }, /MISSING_KEY, which is not set/],
    [{ CHATFLUX_ROUTES: '{}', CHATFLUX_ROUTES_FILE: '/x' }, /not both/],
    [{ CHATFLUX_ROUTES_FILE: '/nonexistent/routes.json' }, /cannot read/],
    [{ CHATFLUX_ROUTES_FILE: tmpdir() }, /CHATFLUX_ROUTES_FILE: cannot read/],
    [{ CHATFLUX_ROUTES_FILE: routesFile(' \n') }, /CHATFLUX_ROUTES_FILE \(.*routes\.json\) is empty/],
    [{ CHATFLUX_ROUTES_FILE: routesFile('{"chat": [') }, /CHATFLUX_ROUTES_FILE \(.*routes\.json\) is not valid JSON/],
    [{ CHATFLUX_ROUTES_FILE: routesFile('{"chat":{"targets":[{"provider":"deepseek","timeouts":{"idle":-1}}]}}') }, /CHATFLUX_ROUTES_FILE \(.*\) is not a valid route table: chat\.targets\.0\.timeouts\.idle/],
    [{ CHATFLUX_ROUTES: '[]' }, /CHATFLUX_ROUTES is not a valid route table: \(root\)/],
    [{ CHATFLUX_ROUTES: '{"chat":{"targets":[{"provider":"deepseek"}],"breaker":{"failureRate":2}}}' }, /chat\.breaker/],
  ])('a clear ConfigError for %j', (env, message) => {
    expect(() => loadRoutes(env)).toThrow(ConfigError);
    expect(() => loadRoutes(env)).toThrow(message);
  });
});
