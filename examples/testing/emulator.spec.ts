/**
 * A user's jest test against the chatflux upstream emulator: no API key, no network, deterministic answers, and
 * any provider fault on demand. In your project import from 'chatflux/testing' and 'chatflux/operators'.
 */
import { last, lastValueFrom } from 'rxjs';
import { accumulateDeltas } from '../../src/operators/accumulateDeltas.js';
import { decodeChunk } from '../../src/operators/decodeChunk.js';
import { parseSse } from '../../src/operators/parseSse.js';
import { fromBody } from '../../src/source/fromBody.js';
import { startEmulator, type Emulator } from '../../src/testing/index.js';

/** The code under test: asks a provider and returns the complete answer. */
async function ask(baseUrl: string, question: string, scenario = ''): Promise<string | null | undefined> {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', 'x-emulator-scenario': scenario },
    body: JSON.stringify({ model: 'moonshot-v1-8k', stream: true, messages: [{ role: 'user', content: question }] }),
  });
  if (!res.ok || !res.body) throw new Error(`upstream answered ${res.status}`);
  const answer = await lastValueFrom(fromBody(res.body).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last()));
  return answer.choices[0]?.message.content;
}

describe('my chat feature', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'moonshot', seed: 1, apiKey: 'sk-test' });
  });
  afterAll(() => emulator.close());

  it('gets an answer about the question', async () => {
    expect(await ask(emulator.url, '你好')).toMatch(/^关于「你好」，/);
  });

  it('fails on a stream cut before [DONE]', async () => {
    await expect(ask(emulator.url, '你好', 'eof-after=2')).rejects.toThrow();
  });

  it('fails on a rate limit', async () => {
    await expect(ask(emulator.url, '你好', 'status=429;retry-after=1')).rejects.toThrow('upstream answered 429');
  });
});
