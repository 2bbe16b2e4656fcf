import OpenAI from 'openai';
import type { ChatRequestLog } from '../../src/express/chatRouter';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { waitFor } from '../../test/helpers/streamSources';

/**
 * The gateway (`npm start`, built-in emulator, unpaced) serves `/v1/chat/completions` and `/v1/models` with its keys
 * and logs: the official `openai` SDK configured with `baseURL: <gateway>/v1` reads both wires.
 */
describe('startGateway: the OpenAI-compatible endpoint', () => {
  let gateway: RunningGateway;
  const logs: ChatRequestLog[] = [];
  beforeAll(async () => {
    const config = loadGatewayConfig({ CHATFLUX_GATEWAY_KEYS: 'sk-gw', CHATFLUX_EMULATOR_PACE_MS: '0' });
    gateway = await startGateway({ ...config, port: 0 }, { log: (entry) => logs.push(entry) });
  });
  afterAll(async () => gateway.close(0));

  it('answers the openai SDK streaming and not, lists its model, refuses a wrong key, and logs each request', async () => {
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'sk-gw', maxRetries: 0, timeout: 5000 });
    const ask = { model: 'deepseek-chat', messages: [{ role: 'user' as const, content: 'Hello' }] };
    const completion = await openai.chat.completions.create(ask);
    const streamed = await openai.chat.completions.stream({ ...ask, stream_options: { include_usage: true } }).finalChatCompletion();
    expect(streamed.choices[0]!.message.content).toBe(completion.choices[0]!.message.content);
    expect(streamed.usage).toEqual(completion.usage);
    expect((await openai.models.list()).data.map((model) => model.id)).toEqual([expect.any(String)]);
    const stranger = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'sk-wrong', maxRetries: 0 });
    await expect(stranger.chat.completions.create(ask)).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await waitFor(() => logs.length === 3);
    expect(logs.map((entry) => [entry.endpoint, entry.status, entry.result])).toEqual([
      ['/v1/chat/completions', 200, 'completed'],
      ['/v1/chat/completions', 200, 'completed'],
      ['/v1/chat/completions', 401, 'failed'],
    ]);
    expect(logs[1]?.usage).toEqual(completion.usage);
  });
});
