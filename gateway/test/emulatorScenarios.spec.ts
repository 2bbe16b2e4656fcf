/**
 * The built-in emulator behind the default gateway takes fault scenarios from the requests only when
 * `CHATFLUX_EMULATOR_SCENARIOS=true`: by default a client cannot drive its faults (`#status=500` in the model name).
 */
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../../test/helpers/rawRequest';

const FAULTY = { model: 'deepseek-chat#status=500', messages: [{ role: 'user', content: 'hi' }] };

describe('emulator scenarios on the gateway', () => {
  let gateway: RunningGateway | undefined;
  afterEach(async () => {
    await gateway?.close(0);
    gateway = undefined;
  });

  it('by default, a scenario in the model name is ignored: a healthy answer', async () => {
    gateway = await startGateway({ ...loadGatewayConfig({}), port: 0 }, { log: () => undefined });
    const res = await rawRequest(`${gateway.url}/chat/json`, { body: FAULTY });
    expect(res.status).toBe(200);
  });

  it('CHATFLUX_EMULATOR_SCENARIOS=true: the scenario applies', async () => {
    gateway = await startGateway({ ...loadGatewayConfig({ CHATFLUX_EMULATOR_SCENARIOS: 'true' }), port: 0 }, { log: () => undefined });
    const res = await rawRequest(`${gateway.url}/chat/json`, { body: FAULTY });
    expect(res.status).toBe(502);
  });

  it('startEmulator({ requestScenarios: false }) ignores the header and the model suffix', async () => {
    const emulator = await startEmulator({ dialect: 'deepseek', requestScenarios: false });
    try {
      const res = await rawRequest(`${emulator.url}/chat/completions`, { body: { ...FAULTY, stream: false }, headers: { 'x-emulator-scenario': 'status=429' } });
      expect(res.status).toBe(200);
    } finally {
      await emulator.close();
    }
  });
});
