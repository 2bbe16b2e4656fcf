/**
 * The gateway's observability of failover routes (CHATFLUX_ROUTES): every target's calls get the GenAI metrics with
 * the model that answered, and /metrics counts the route's attempts by outcome and its circuit breakers' transitions.
 */
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../../test/helpers/rawRequest';

const BODY = { model: 'chat', messages: [{ role: 'user', content: 'hi' }] };

let down: Emulator;
let healthy: Emulator;
let gateway: RunningGateway;
beforeAll(async () => {
  down = await startEmulator({ dialect: 'deepseek', seed: 1, scenario: 'status=503' });
  healthy = await startEmulator({ dialect: 'deepseek', seed: 1, scenario: 'tokens=20' });
  const routes = {
    chat: {
      // Opens after one failure, so the second request finds the first target skipped.
      breaker: { consecutiveFailures: 1, coolDownMs: 60_000 },
      targets: [
        { provider: 'openai-compatible', baseUrl: down.url, model: 'primary-model', name: 'primary', retries: 0 },
        { provider: 'openai-compatible', baseUrl: healthy.url, model: 'backup-model', name: 'backup', retries: 0 },
      ],
    },
  };
  const config = loadGatewayConfig({ PORT: '0', CHATFLUX_ROUTES: JSON.stringify(routes), CHATFLUX_HEARTBEAT_MS: '0' });
  gateway = await startGateway(config, { log: () => undefined });
});
afterAll(async () => {
  await gateway.close(0);
  await Promise.all([down.close(), healthy.close()]);
});

/** The samples of one Prometheus metric, each as its label text and value. */
const samples = (text: string, name: string): Array<{ labels: string; value: number }> =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => ({ labels: line.slice(line.indexOf('{'), line.lastIndexOf('}') + 1), value: Number(line.slice(line.lastIndexOf(' ') + 1)) }));

it('counts attempts by target and outcome, breaker transitions, and the GenAI metrics of the model that answered', async () => {
  for (let i = 0; i < 2; i += 1) {
    const res = await rawRequest(`${gateway.url}/chat/json`, { body: BODY });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { model: string }).model).toBe('backup-model');
  }
  const text = (await rawRequest(`${gateway.url}/metrics`)).body;
  const attempts = samples(text, 'chatflux_route_attempts_total');
  const count = (target: string, outcome: string): number | undefined =>
    attempts.find((s) => s.labels.includes(`chatflux_route_target="${target}"`) && s.labels.includes(`chatflux_route_outcome="${outcome}"`))?.value;
  expect(count('primary', 'failed')).toBe(1);
  expect(count('primary', 'skipped')).toBe(1);
  expect(count('backup', 'completed')).toBe(2);
  const transitions = samples(text, 'chatflux_route_breaker_transitions_total');
  expect(transitions).toEqual([{ labels: expect.stringContaining('chatflux_breaker_state="open"') as string, value: 1 }]);
  // The routed targets' calls are traced like the default client's: token usage by the model that answered.
  const usage = samples(text, 'gen_ai_client_token_usage_count');
  expect(usage.some((s) => s.labels.includes('gen_ai_response_model="backup-model"') || s.labels.includes('gen_ai_request_model="backup-model"'))).toBe(true);
});
