import { createChatClient, type ChatClient } from '../../src/client/createChatClient';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

/** The upstream of a suite: see {@link useEmulatedClient}. */
export interface EmulatedClient {
  /** The DeepSeek emulator (set in `beforeAll`). */
  readonly emulator: Emulator;
  /** A client of it, model `deepseek-chat`, no retries (set in `beforeAll`). */
  readonly client: ChatClient;
}

/**
 * Registers `beforeAll`/`afterAll` hooks in the calling scope that start a DeepSeek emulator (seed 3) and a client of
 * it, and close both: read them from the returned object inside tests.
 */
export function useEmulatedClient(): EmulatedClient {
  const upstream = {} as { emulator: Emulator; client: ChatClient };
  beforeAll(async () => {
    upstream.emulator = await startEmulator({ dialect: 'deepseek', seed: 3 });
    upstream.client = createChatClient({ baseUrl: upstream.emulator.url, model: 'deepseek-chat', retry: 0 });
  });
  afterAll(async () => {
    await upstream.client.close();
    await upstream.emulator.close();
  });
  return upstream;
}
