import { describeGatewayConfig } from '../src/describeGatewayConfig';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { expectForwardedIntact } from '../../test/helpers/expectForwardedIntact';
import { rawRequest } from '../../test/helpers/rawRequest';
import { expectErrorBeforeCommit, expectJsonAnswer } from '../../test/helpers/wireAssertions';

describe('gateway: every request field reaches the provider', () => {
  let emulator: Emulator;
  const gateways: RunningGateway[] = [];
  const start = async (env: Record<string, string> = {}): Promise<RunningGateway> => {
    const config = loadGatewayConfig({
      CHATFLUX_BASE_URL: emulator.url,
      CHATFLUX_MODEL: 'deepseek-chat',
      CHATFLUX_MAX_RETRIES: '0',
      PORT: '0',
      ...env,
    });
    const gateway = await startGateway(config, { log: () => undefined });
    gateways.push(gateway);
    return gateway;
  };
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 5 });
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close(0)));
  });
  afterAll(async () => emulator.close());

  it('seed, n, thinking, tools, a tool result, reasoning_content, images, prefix and unknown fields arrive intact, on every endpoint', async () => {
    await expectForwardedIntact((await start({ CHATFLUX_ALLOW_SEVERAL_CHOICES: 'true' })).url, emulator, 'gateway'); // n: 2 among them
  });

  it('n > 1 is refused unless CHATFLUX_ALLOW_SEVERAL_CHOICES=true: the contract has one message, the upstream would bill n', async () => {
    const ask = async (gateway: RunningGateway) =>
      rawRequest(`${gateway.url}/chat/json`, { body: { messages: [{ role: 'user', content: 'choices' }], n: 4, user: gateway.url } });
    const refusing = await start();
    const before = emulator.requests.length;
    expect(expectErrorBeforeCommit(await ask(refusing), '/chat/json', 400, 'invalid_request').message).toMatch(
      /^invalid request body: n: this endpoint answers one choice, got n = 4 \(the upstream would generate 4 answers/,
    );
    expect(emulator.requests.length).toBe(before);
    const allowing = await start({ CHATFLUX_ALLOW_SEVERAL_CHOICES: 'true' });
    expectJsonAnswer(await ask(allowing));
    expect((await emulator.waitForRequest((r) => (r.body as { user?: unknown }).user === allowing.url)).body).toMatchObject({ n: 4 });
    expect(describeGatewayConfig(loadGatewayConfig({}))).toContain('choices:      n > 1 refused on /chat/* (default)');
    expect(describeGatewayConfig(loadGatewayConfig({ CHATFLUX_ALLOW_SEVERAL_CHOICES: 'true' }))).toContain(
      'choices:      n > 1 forwarded on /chat/* (only the first choice is answered)',
    );
    expect(() => loadGatewayConfig({ CHATFLUX_ALLOW_SEVERAL_CHOICES: 'yes' })).toThrow(/CHATFLUX_ALLOW_SEVERAL_CHOICES must be true or false/);
  });

  it('the operator restricts with CHATFLUX_ALLOWED_MODELS, CHATFLUX_MAX_TOKENS, CHATFLUX_MAX_N, CHATFLUX_STRIP_FIELDS', async () => {
    const gateway = await start({
      CHATFLUX_ALLOWED_MODELS: 'deepseek-chat, deepseek-reasoner',
      CHATFLUX_MAX_TOKENS: '100',
      CHATFLUX_MAX_N: '1',
      CHATFLUX_STRIP_FIELDS: 'user,thinking',
    });
    const ask = (extra: Record<string, unknown>) =>
      rawRequest(`${gateway.url}/chat/json`, {
        body: { messages: [{ role: 'user', content: 'gateway policy' }], ...extra },
      });
    expect(
      expectErrorBeforeCommit(await ask({ model: 'other' }), '/chat/json', 400, 'invalid_request').message,
    ).toMatch(/^invalid request body: model: "other" is not allowed/);
    expect(
      expectErrorBeforeCommit(await ask({ max_completion_tokens: 101 }), '/chat/json', 400, 'invalid_request').message,
    ).toMatch(/max_completion_tokens: at most 100/);
    expect(expectErrorBeforeCommit(await ask({ n: 2 }), '/chat/json', 400, 'invalid_request').message).toMatch(
      /n: at most 1/,
    );
    expectJsonAnswer(
      await ask({ model: 'deepseek-reasoner', seed: 5150, user: 'u', thinking: { type: 'enabled' }, max_tokens: 80 }),
    );
    const received = await emulator.waitForRequest((r) => (r.body as { seed?: unknown }).seed === 5150);
    expect(received.body).toEqual({
      model: 'deepseek-reasoner',
      messages: [{ role: 'user', content: 'gateway policy' }],
      seed: 5150,
      max_tokens: 80,
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});
