/**
 * createChatClient's `close(graceMs)` against an emulator on 127.0.0.1 — a defect found in review: a call waiting
 * between two attempts (a 503 with a Retry-After) was not counted as in flight, so `close(grace)` did not wait for it
 * and its retry failed with the misuse error "this chat client was closed; create a new one" (a 500 for a client of
 * the gateway) instead of getting the grace to finish. A route's call waiting to retry on a target: likewise.
 */
import { firstValueFrom } from 'rxjs';
import { createChatClient } from '../../src/client/createChatClient';
import { createChatRoute } from '../../src/client/createChatRoute';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

const REQUEST = { messages: [{ role: 'user' as const, content: '你好' }] };
let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('createChatClient close (review)', () => {
  it('a call waiting to retry gets the grace to finish', async () => {
    emulator = await startEmulator({ dialect: 'openai', scenario: 'fail-first=1:503;retry-after-ms=300;tokens=5' });
    const client = createChatClient({ baseUrl: emulator.url, model: 'm', retry: 1 });
    const answer = firstValueFrom(client.json(REQUEST));
    answer.catch(() => undefined);
    const deadline = Date.now() + 2000;
    while (emulator.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the 503 is in: the call waits 300 ms to retry
    const closed = client.close(3000);
    await expect(answer).resolves.toMatchObject({ message: { role: 'assistant' } });
    await closed;
    expect(emulator.requests).toHaveLength(2);
  });

  it('a route call waiting to retry on its target gets the grace to finish too', async () => {
    emulator = await startEmulator({ dialect: 'openai', scenario: 'fail-first=1:503;retry-after-ms=300;tokens=5' });
    const route = createChatRoute({ targets: [{ baseUrl: emulator.url, model: 'm', retry: 1 }] });
    const answer = firstValueFrom(route.json(REQUEST));
    answer.catch(() => undefined);
    const deadline = Date.now() + 2000;
    while (emulator.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = route.close(3000);
    await expect(answer).resolves.toMatchObject({ message: { role: 'assistant' } });
    await closed;
    expect(emulator.requests).toHaveLength(2);
  });
});
