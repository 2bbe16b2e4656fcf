import OpenAI from 'openai';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

/**
 * `/v1/chat/completions` makes the client calls of the other endpoints, so a gateway route's failover and mid-stream
 * continuation apply to it: a primary cut after 40 of 60 tokens is continued by the fallback, and the openai SDK sees
 * one complete answer (streamed and not), the text of a healthy route; `/v1/models` lists the routes.
 */
describe('/v1/chat/completions through a failover route', () => {
  let emulators: Emulator[];
  let gateway: RunningGateway;
  beforeAll(async () => {
    emulators = await Promise.all(['tokens=60;pace=2;reset-after=40', 'tokens=60', 'tokens=60'].map((scenario) => startEmulator({ dialect: 'deepseek', seed: 1, scenario })));
    const target = (i: number) => ({ provider: 'openai-compatible', baseUrl: emulators[i]!.url, model: 'deepseek-chat', name: `t${i}`, retries: 0, prefill: 'deepseek' });
    const routes = { chat: { breaker: false, targets: [target(0), target(1)] }, ref: { targets: [target(2)] } };
    gateway = await startGateway({ ...loadGatewayConfig({ CHATFLUX_ROUTES: JSON.stringify(routes), CHATFLUX_HEARTBEAT_MS: '0' }), port: 0 }, { log: () => undefined });
  });
  afterAll(async () => {
    await gateway.close(0);
    await Promise.all(emulators.map((emulator) => emulator.close()));
  });

  it('a cut primary is continued: the SDK gets the whole answer, streamed and not', async () => {
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'none', maxRetries: 0, timeout: 10_000 });
    const messages = [{ role: 'user' as const, content: '讲讲 failover' }];
    const healthy = (await openai.chat.completions.create({ model: 'ref', messages })).choices[0]!.message.content;
    const streamed = await openai.chat.completions.stream({ model: 'chat', messages }).finalChatCompletion();
    expect(streamed.choices[0]!.message.content).toBe(healthy);
    expect(streamed.choices[0]!.finish_reason).toBe('stop');
    const whole = await openai.chat.completions.create({ model: 'chat', messages });
    expect(whole.choices[0]!.message.content).toBe(healthy);
    expect(emulators[0]!.requests).toHaveLength(2); // cut both times, continued by t1 both times
    expect((await openai.models.list()).data.map((model) => model.id)).toEqual(expect.arrayContaining(['chat', 'ref']));
  });
});
