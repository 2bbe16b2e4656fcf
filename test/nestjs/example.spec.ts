import { AppModule } from '../../examples/nestjs/app.module.js';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import { rawRequest } from '../helpers/rawRequest.js';
import { contentOf, expectJsonAnswer, expectSseAnswer, ndjsonLines } from '../helpers/wireAssertions.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';

describe('examples/nestjs', () => {
  let emulator: Emulator;
  let nest: NestTestApp;
  const saved = { ...process.env };

  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek' });
    process.env['CHATFLUX_BASE_URL'] = emulator.url;
    process.env['CHATFLUX_API_KEY'] = 'emulator';
    nest = await startNestApp({ imports: [AppModule] }, { bodyParser: false }); // as examples/nestjs/main.ts creates it
  });
  afterAll(async () => {
    await nest.close();
    await emulator.close();
    process.env = saved;
  });

  const body = { messages: [{ role: 'user', content: 'Hello!' }] };
  const headers = { Connection: 'keep-alive' };

  it('serves the module routes under /v1 and the example controller', async () => {
    const json = expectJsonAnswer(await rawRequest(`${nest.url}/v1/chat/json`, { body, headers }));
    const sse = expectSseAnswer(await rawRequest(`${nest.url}/assistant/ask`, { body, headers }));
    expect(contentOf(sse)).toBe(json.message.content);
    const text = ndjsonLines((await rawRequest(`${nest.url}/assistant/text`, { body, headers })).body) as Array<{ text: string }>;
    expect(text.map((line) => line.text).join('')).toBe(json.message.content);
    expect(expectJsonAnswer(await rawRequest(`${nest.url}/assistant/answer`, { body, headers }))).toEqual(json);
  });

  it("serves OpenAI's endpoint at /v1/chat/completions (an OpenAI client's base URL …/v1), not /v1/v1/", async () => {
    const json = expectJsonAnswer(await rawRequest(`${nest.url}/v1/chat/json`, { body, headers }));
    const res = await rawRequest(`${nest.url}/v1/chat/completions`, { body, headers });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: json.message.content } }] });
    expect((await rawRequest(`${nest.url}/v1/v1/chat/completions`, { body, headers })).status).toBe(404);
  });
});
